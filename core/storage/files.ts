import { statfsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Home } from "../home.ts";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates `dir` (and parents) if needed and makes it 0700 whatever the umask. */
export function ensurePrivateDir(dir: string): void {
  Deno.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  tighten(dir, DIR_MODE);
}

/**
 * Creates an empty file with mode 0600 if none exists, so SQLite (which gives its -wal and
 * -shm files the database file's mode) never creates anything world-readable.
 * Only call this before any SQLite connection to `path` exists in this process: closing
 * a descriptor drops the process's POSIX locks on the file.
 */
export function ensurePrivateFile(path: string): boolean {
  try {
    const file = Deno.openSync(path, { createNew: true, write: true, mode: FILE_MODE });
    file.close();
    tighten(path, FILE_MODE);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return false;
    throw err;
  }
}

/** Fixes the modes of the home, the backups folder and every database file found looser. */
export function hardenHome(home: Home): void {
  tighten(home.dir, DIR_MODE);
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    tighten(home.dbPath + suffix, FILE_MODE);
  }
  if (modeOf(home.backupsDir) !== null) {
    tighten(home.backupsDir, DIR_MODE);
    for (const entry of Deno.readDirSync(home.backupsDir)) {
      if (entry.isFile) tighten(join(home.backupsDir, entry.name), FILE_MODE);
    }
  }
}

/** chmod only when the current mode differs (chmod never opens the file, so locks are safe). */
export function tighten(path: string, mode: number): void {
  const current = modeOf(path);
  if (current !== null && current !== mode) Deno.chmodSync(path, mode);
}

/** The permission bits of a path, or null when it does not exist. */
export function modeOf(path: string): number | null {
  try {
    return (Deno.statSync(path).mode ?? 0) & 0o777;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/**
 * Bytes free for an unprivileged writer on the file system holding `path` (its nearest
 * existing ancestor, when it does not exist yet), or null when none can be asked.
 */
export function freeBytes(path: string): number | null {
  for (let p = resolve(path);; p = dirname(p)) {
    try {
      const s = statfsSync(p);
      return Number(s.bavail) * Number(s.bsize);
    } catch {
      // Missing or not searchable: an ancestor's file system is the same one, or the best
      // guess there is; past the root there is nothing left to ask.
      if (dirname(p) === p) return null;
    }
  }
}

/**
 * Tries to create and write a small file in `dir`, then removes it: returns the error that
 * stopped it, or null when writing there works. For error paths only (it writes).
 */
export function probeWrite(dir: string): unknown {
  let path: string | null = null;
  try {
    path = Deno.makeTempFileSync({ dir, prefix: ".bonsai-probe-" });
    Deno.writeFileSync(path, new Uint8Array(PROBE_BYTES));
    return null;
  } catch (err) {
    return err;
  } finally {
    if (path !== null) removeIfPresent(path);
  }
}

/** A page: enough that a full file system refuses it. */
const PROBE_BYTES = 4096;

export function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

/** Removes a database file and the journal, WAL and shared-memory files beside it. */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) removeIfPresent(path + suffix);
}
