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
import type { DatabaseSync as Connection } from "node:sqlite";
import { connect } from "./connection.ts";
import { sleep } from "../abort.ts";
import { ensurePrivateDir, ensurePrivateFile, hardenHome, removeDatabaseFiles } from "./files.ts";
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
    /**
     * Whether a lease's holder is live (the liveness rule decides): a forced restore waits
     * until no live session holds a project's write lease, at most `maxLeaseWaitMs`.
     */
    leaseHeld?: (holder: LeaseHolderRow) => boolean;
    maxLeaseWaitMs?: number;
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
      if (current >= 1 && current <= supported) await waitForLeases(conn, options);
      if (!created && (current > 0 || hasObjects(conn))) {
        safetyBackup = await takeBackup(conn, {
          home,
          clock,
          version: current,
          reason: "pre-restore",
        });
      }
    }
    await copyFenced(restored.path, home, conn.isOpen ? fencesOf(conn) : null, clock.now());
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

/** Longest a forced restore waits for a write lease to be given back. */
const RESTORE_LEASE_WAIT_MS = 60_000;
/**
 * How far a restore moves every fencing token (session epochs, lease tokens) past the
 * replaced database's: more than any number of takeovers or acquisitions that could happen
 * between reading them and the copy.
 */
export const RESTORE_FENCE_MARGIN = 1_000;

/**
 * The write lease serializes a restore too: it waits (bounded) while a live session holds
 * any project's lease, then goes ahead; the copy it puts in place fences that holder out.
 */
async function waitForLeases(
  conn: Connection,
  options: {
    clock: Clock;
    leaseHeld?: (holder: LeaseHolderRow) => boolean;
    maxLeaseWaitMs?: number;
  },
): Promise<void> {
  const held = options.leaseHeld;
  if (!held) return;
  const deadline = options.clock.now() + (options.maxLeaseWaitMs ?? RESTORE_LEASE_WAIT_MS);
  for (;;) {
    const holder = heldLeases(conn).find(held);
    if (!holder) return;
    if (options.clock.now() >= deadline) {
      throw new BonsaiError(
        "LEASE_BUSY",
        `Cannot restore while '${holder.title}' (process ${
          holder.ownerPid ?? "?"
        }) holds its project's write lease; try again when it is done`,
      );
    }
    await sleep(50);
  }
}

/** The holder of an unreleased lease, with what the liveness rule judges it on. */
export interface LeaseHolderRow {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly ownerPid: number | null;
  readonly ownerHost: string | null;
  readonly heartbeatAt: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

function heldLeases(conn: Connection): LeaseHolderRow[] {
  return (conn.prepare(
    `SELECT s.id, s.title, s.status, s.owner_pid, s.owner_host, s.heartbeat_at, s.created_at,
       l.expires_at
     FROM leases l JOIN sessions s ON s.id = l.owner_session WHERE l.released_at IS NULL`,
  ).all() as {
    id: string;
    title: string;
    status: string;
    owner_pid: number | null;
    owner_host: string | null;
    heartbeat_at: number | null;
    created_at: number;
    expires_at: number;
  }[]).map((r) => ({
    id: r.id,
    title: r.title,
    status: r.status,
    ownerPid: r.owner_pid,
    ownerHost: r.owner_host,
    heartbeatAt: r.heartbeat_at,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  }));
}

/** The fencing tokens of the database being replaced. */
interface Fences {
  readonly leaseToken: number;
  /** Session id → epoch, for sessions past epoch 0. */
  readonly epochs: ReadonlyMap<string, number>;
}

function fencesOf(conn: Connection): Fences | null {
  try {
    const { token } = conn.prepare("SELECT coalesce(max(token), 0) AS token FROM leases").get() as {
      token: number;
    };
    const epochs = new Map<string, number>();
    if (hasColumn(conn, "sessions", "epoch")) {
      for (
        const r of conn.prepare("SELECT id, epoch FROM sessions WHERE epoch > 0").all() as {
          id: string;
          epoch: number;
        }[]
      ) epochs.set(r.id, r.epoch);
    }
    return { leaseToken: token, epochs };
  } catch {
    return null; // An older or damaged schema: there is nothing to fence against.
  }
}

/**
 * Puts the backup in place with every fencing token moved past the replaced database's: its
 * leases released and its lease tokens continuing above the old ones, each session's epoch
 * above both copies'. A process that was writing before the restore (a `--force` restore
 * goes ahead while peers live) has its next write refused, as after a takeover, instead of
 * writing into a history it no longer matches. The backup is fixed in a temporary copy
 * first, so the database never holds the backup's older tokens.
 */
async function copyFenced(
  backupPath: string,
  home: Home,
  fences: Fences | null,
  now: number,
): Promise<void> {
  const temp = join(home.dir, `.restore-${crypto.randomUUID()}.db`);
  try {
    await copyBackupInto(backupPath, temp);
    const fix = connect(temp);
    try {
      fix.exec("BEGIN IMMEDIATE");
      fix.prepare("UPDATE leases SET released_at = ? WHERE released_at IS NULL").run(now);
      const floor = (fences?.leaseToken ?? 0) + RESTORE_FENCE_MARGIN;
      fix.prepare("DELETE FROM sqlite_sequence WHERE name = 'leases'").run();
      fix.prepare(
        `INSERT INTO sqlite_sequence (name, seq)
         SELECT 'leases', max(?, coalesce((SELECT max(token) FROM leases), 0) + ?)`,
      ).run(floor, RESTORE_FENCE_MARGIN);
      if (hasColumn(fix, "sessions", "epoch")) {
        fix.exec("CREATE TEMP TABLE replaced_epochs (id TEXT PRIMARY KEY, epoch INTEGER)");
        const put = fix.prepare("INSERT INTO replaced_epochs VALUES (?, ?)");
        for (const [id, epoch] of fences?.epochs ?? []) put.run(id, epoch);
        fix.prepare(
          `UPDATE sessions SET epoch = ? + max(epoch,
             coalesce((SELECT r.epoch FROM replaced_epochs r WHERE r.id = sessions.id), 0))`,
        ).run(RESTORE_FENCE_MARGIN);
      }
      fix.exec("COMMIT");
    } finally {
      fix.close();
    }
    await copyBackupInto(temp, home.dbPath);
  } finally {
    removeDatabaseFiles(temp);
  }
}

function hasColumn(conn: Connection, table: string, column: string): boolean {
  return (conn.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as {
    name: string;
  }[]).some((c) => c.name === column);
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
