import { backup, DatabaseSync } from "node:sqlite";
import { basename, dirname, join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Home } from "../home.ts";
import { BonsaiError, messageOf } from "../errors.ts";
import { ensurePrivateDir, ensurePrivateFile, removeDatabaseFiles, tighten } from "./files.ts";
import { describeStorageError } from "./storage_errors.ts";

/** A backup file in `$BONSAI_HOME/backups`. */
export interface BackupInfo {
  readonly name: string;
  readonly path: string;
  readonly size: number;
  /** When it was taken (from its name), epoch ms. */
  readonly takenAt: number;
  /** Schema version of the database it holds (from its name). */
  readonly version: number;
  /** Why it was taken: `migration` or `pre-restore`. */
  readonly reason: string;
}

const NAME = /^(\d{8}T\d{6}Z)-v(\d+)(?:-(pre-restore))?(?:-(\d+))?\.db$/;

/**
 * Copies the live database through SQLite's online backup API (never a file copy: closing
 * a descriptor on the database drops this process's locks) into
 * `backups/<timestamp>-v<version>[-<reason>].db`, then verifies it with integrity_check.
 * Returns the backup's path. The file is 0600 and self-contained (rollback journal mode).
 */
export async function takeBackup(
  source: DatabaseSync,
  options: { home: Home; clock: Clock; version: number; reason?: "pre-restore" },
): Promise<string> {
  const { home, clock, version } = options;
  ensurePrivateDir(home.backupsDir);
  const stem = `${stamp(clock.now())}-v${version}${options.reason ? `-${options.reason}` : ""}`;
  const path = freshPath(home.backupsDir, stem);
  const partial = `${path}.partial`;
  ensurePrivateFile(partial);
  try {
    await backup(source, partial);
    verifyBackupFile(partial, { makeStandalone: true });
    Deno.renameSync(partial, path);
    tighten(path, 0o600);
    return path;
  } catch (err) {
    // Described before the partial copy goes, so a full disk is seen as the copy left it.
    const described = describeStorageError(err, home.dir);
    removeDatabaseFiles(partial);
    if (described !== err) throw described;
    throw new BonsaiError("BACKUP_FAILED", `Cannot back up the database: ${messageOf(err)}`, {
      cause: err,
    });
  }
}

/** Checks a backup file with integrity_check; throws DB_CORRUPT when it fails. */
export function verifyBackupFile(path: string, options: { makeStandalone?: boolean } = {}): number {
  const conn = new DatabaseSync(path);
  try {
    if (options.makeStandalone) conn.exec("PRAGMA journal_mode = DELETE");
    const rows = conn.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== "ok");
    if (problems.length > 0) {
      throw new BonsaiError(
        "DB_CORRUPT",
        `Backup '${path}' failed integrity_check: ${problems.slice(0, 3).join("; ")}`,
      );
    }
    return (conn.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    conn.close();
  }
}

/**
 * Copies a backup into the database at `targetPath` through the backup API. A copy that
 * fails (a full disk) leaves the target as it was: the API writes it in one transaction.
 */
export async function copyBackupInto(backupPath: string, targetPath: string): Promise<void> {
  const source = new DatabaseSync(backupPath, { readOnly: true });
  try {
    await backup(source, targetPath);
  } catch (err) {
    throw describeStorageError(err, dirname(targetPath));
  } finally {
    source.close();
  }
}

/** Backups, newest first. */
export function listBackups(home: Home): BackupInfo[] {
  const out: BackupInfo[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(home.backupsDir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  for (const entry of entries) {
    const match = entry.isFile ? NAME.exec(entry.name) : null;
    if (!match) continue;
    const path = join(home.backupsDir, entry.name);
    out.push({
      name: entry.name,
      path,
      size: Deno.statSync(path).size,
      takenAt: parseStamp(match[1]!),
      version: Number(match[2]),
      reason: match[3] ?? "migration",
    });
  }
  return out.sort((a, b) => b.takenAt - a.takenAt || b.name.localeCompare(a.name));
}

/** Finds a backup by file name (with or without `.db`); refuses anything that is not one. */
export function findBackup(home: Home, name: string): BackupInfo {
  const wanted = basename(name) === name ? (name.endsWith(".db") ? name : `${name}.db`) : null;
  const found = wanted ? listBackups(home).find((b) => b.name === wanted) : undefined;
  if (!found) {
    throw new BonsaiError(
      "NOT_FOUND",
      `No backup named '${name}' in '${home.backupsDir}'; 'bonsai db backups' lists them`,
    );
  }
  return found;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

function parseStamp(s: string): number {
  const iso = `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${
    s.slice(11, 13)
  }:${s.slice(13, 15)}Z`;
  return Date.parse(iso);
}

function freshPath(dir: string, stem: string): string {
  for (let n = 1;; n++) {
    const path = join(dir, n === 1 ? `${stem}.db` : `${stem}-${n}.db`);
    if (!exists(path) && !exists(`${path}.partial`)) return path;
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
