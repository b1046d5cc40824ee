import { join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Home } from "../home.ts";
import { BonsaiError } from "../errors.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import {
  type BackupInfo,
  copyBackupInto,
  findBackup,
  takeBackup,
  verifyBackupFile,
} from "./backups.ts";
import { connect } from "./connection.ts";
import { ensurePrivateDir, ensurePrivateFile, hardenHome } from "./files.ts";
import { latestVersion } from "./migrate.ts";
import { describeDatabaseError, STORAGE_FAILURE_CODES } from "./storage_errors.ts";
import { type ActiveSessionRow, activeSessions } from "./sessions.ts";

/** What a restore did. */
export interface RestoreResult {
  readonly restored: BackupInfo;
  /** Schema version now in the database. */
  readonly version: number;
  /** Backup of the database that was replaced, or null when there was none. */
  readonly safetyBackup: string | null;
  /** Where an unreadable database was moved aside, or null. */
  readonly movedAside: string | null;
}

/**
 * Replaces the database with a named backup through the backup API, after taking a backup
 * of what it replaces. Refuses while other processes have live sessions, unless `force`.
 */
export async function restoreBackup(
  options: {
    home: Home;
    clock: Clock;
    name: string;
    force?: boolean;
    /** Whether another process holds this session (the liveness rule, core/session, decides). */
    liveElsewhere: (row: ActiveSessionRow) => boolean;
  },
): Promise<RestoreResult> {
  const { home, clock } = options;
  const restored = findBackup(home, options.name);
  const version = verifyBackupFile(restored.path);
  const supported = latestVersion(MIGRATIONS);
  if (version > supported) {
    throw new BonsaiError(
      "DB_TOO_NEW",
      `Backup '${restored.name}' has schema version ${version}, newer than this bonsai understands (${supported})`,
    );
  }
  ensurePrivateDir(home.dir);
  let safetyBackup: string | null = null;
  let movedAside: string | null = null;
  const created = ensurePrivateFile(home.dbPath);
  const conn = connect(home.dbPath);
  try {
    let current: number | null = null;
    try {
      conn.prepare("SELECT count(*) FROM sqlite_schema").get();
      current =
        (conn.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    } catch (err) {
      // Only a file that is not a readable database is moved aside; a busy database or a
      // disk that cannot be used is reported as it is.
      const described = describeDatabaseError(err, home);
      if (
        !(described instanceof BonsaiError) || described.code === "DB_BUSY" ||
        STORAGE_FAILURE_CODES.includes(described.code)
      ) throw described;
    }
    if (current === null) {
      // Not readable as a database: keep the bytes, out of the way.
      conn.close();
      movedAside = moveAside(home, clock);
      ensurePrivateFile(home.dbPath);
    } else {
      if (!options.force && current >= 1 && current <= supported) {
        const live = activeSessions(conn).filter(options.liveElsewhere);
        if (live.length > 0) {
          throw new BonsaiError(
            "SESSION_LIVE",
            `Cannot restore while ${live.length} session(s) are live (e.g. '${
              live[0]!.id
            }' in process ${live[0]!.ownerPid ?? "?"}); quit them first or pass --force`,
          );
        }
      }
      if (!created && (current > 0 || hasObjects(conn))) {
        safetyBackup = await takeBackup(conn, {
          home,
          clock,
          version: current,
          reason: "pre-restore",
        });
      }
    }
    await copyBackupInto(restored.path, home.dbPath);
    const after = connect(home.dbPath);
    try {
      after.exec("PRAGMA journal_mode = WAL");
      const now =
        (after.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
      hardenHome(home);
      return { restored, version: now, safetyBackup, movedAside };
    } finally {
      after.close();
    }
  } finally {
    if (conn.isOpen) conn.close();
  }
}

function hasObjects(conn: ReturnType<typeof connect>): boolean {
  return (conn.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number }).n > 0;
}

function moveAside(home: Home, clock: Clock): string {
  ensurePrivateDir(home.backupsDir);
  const stamp = new Date(clock.now()).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const target = join(home.backupsDir, `${stamp}-unreadable.db`);
  Deno.renameSync(home.dbPath, target);
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    try {
      Deno.renameSync(home.dbPath + suffix, target + suffix);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return target;
}
