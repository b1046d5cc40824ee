import { BonsaiError, type ErrorCode, isBonsaiError, messageOf } from "../errors.ts";
import type { Home } from "../home.ts";
import { freeBytes, probeWrite } from "./files.ts";
import {
  describeOpenError,
  SQLITE_CANTOPEN,
  SQLITE_FULL,
  SQLITE_IOERR,
  SQLITE_PERM,
  SQLITE_READONLY,
  sqliteCode,
  sqliteExtendedCode,
} from "./sqlite_errors.ts";

/** How a read or write under BONSAI_HOME failed, as far as bonsai tells failures apart. */
export type StorageFailure = "full" | "read_only" | "denied" | "io";

const CODES: Readonly<Record<StorageFailure, ErrorCode>> = {
  full: "DISK_FULL",
  read_only: "STORAGE_READ_ONLY",
  denied: "STORAGE_DENIED",
  io: "STORAGE_IO",
};

/** The error codes of storage failures. */
export const STORAGE_FAILURE_CODES: readonly ErrorCode[] = Object.values(CODES);

/** What the operating system's error codes (on Deno's file errors) mean here. */
const OS_CODES: Readonly<Record<string, StorageFailure>> = {
  ENOSPC: "full",
  EDQUOT: "full",
  EROFS: "read_only",
  EACCES: "denied",
  EPERM: "denied",
  EIO: "io",
};

/**
 * Below this much free space a disk I/O error is a full disk: SQLite reports ENOSPC as
 * SQLITE_FULL only where it writes pages; growing the WAL index (-shm) that way fails with
 * SQLITE_IOERR_SHMSIZE. A failed write leaves less free than the page or region it wanted.
 */
const LOW_SPACE = 1 << 20;

/** Errors that wrap the storage failure that caused them. */
const WRAPPERS: readonly ErrorCode[] = ["MIGRATION_FAILED", "BACKUP_FAILED"];

/**
 * Turns a failure of the disk under BONSAI_HOME (`dir`) into a BonsaiError a user can act
 * on — a full disk (SQLITE_FULL, ENOSPC, or a disk I/O error with next to no space left),
 * a read-only file system, permission denied, any other disk I/O error — with one line
 * naming the folder and saying what was kept. Every other error comes back as it is.
 * Error paths only: it may ask the file system for its free space and write a probe file.
 */
export function describeStorageError(err: unknown, dir: string): unknown {
  if (isBonsaiError(err)) {
    if (!WRAPPERS.includes(err.code) || err.cause === undefined) return err;
    const inner = describeStorageError(err.cause, dir);
    return inner === err.cause ? err : inner;
  }
  const failure = storageFailureOf(err, dir);
  if (failure === null) return err;
  if (failure === "full") return diskFull(err, dir);
  return new BonsaiError(CODES[failure], messageFor(failure, err, dir), {
    data: { path: dir },
    cause: err,
  });
}

/**
 * The user-facing error for a failure on the database of `home`: a storage failure (see
 * describeStorageError), else a foreign, damaged or locked database (describeOpenError),
 * else `err` as it is. What every path that opens or writes the database throws.
 */
export function describeDatabaseError(err: unknown, home: Home): unknown {
  const storage = describeStorageError(err, home.dir);
  return storage === err ? describeOpenError(err, home.dbPath) : storage;
}

/** What kind of storage failure `err` is, or null when it is none (it may probe `dir`). */
export function storageFailureOf(err: unknown, dir: string): StorageFailure | null {
  const os = osCode(err);
  if (os !== null) {
    // Only a file error about a path in BONSAI_HOME: others (a project file) are not ours.
    const message = (err as Error).message;
    const ours = message.includes(`'${dir}'`) || message.includes(`'${dir}/`);
    return ours ? OS_CODES[os] ?? null : null;
  }
  switch (sqliteCode(err)) {
    case SQLITE_FULL:
      return "full";
    case SQLITE_PERM:
      return "denied";
    case SQLITE_IOERR:
      return isLow(freeBytes(dir)) ? "full" : probedFailure(dir) ?? "io";
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
      // A file SQLite could not open or write: find out whether the folder is the reason.
      return probedFailure(dir);
    default:
      return null;
  }
}

function diskFull(err: unknown, dir: string): BonsaiError {
  const free = freeBytes(dir);
  const where = `Cannot write to '${dir}' (BONSAI_HOME)`;
  const kept = "what was already saved is kept. Free some space and try again";
  const message = isLow(free) || free === null
    ? `${where}: the disk is full (${
      free === null ? "free space unknown" : `${formatSize(free)} free`
    }); ${kept}`
    // SQLite's temporary files (big sorts) live in the system's temporary folder.
    : `${where}: SQLite found a disk full, though ${
      formatSize(free)
    } is free there (its temporary files may be on another disk, such as /tmp); ${kept}`;
  return new BonsaiError("DISK_FULL", message, {
    data: { path: dir, free_bytes: free },
    cause: err,
  });
}

function messageFor(failure: Exclude<StorageFailure, "full">, err: unknown, dir: string): string {
  const kept = "what was already saved is kept";
  switch (failure) {
    case "read_only":
      return `Cannot use '${dir}' (BONSAI_HOME): the file system is read-only; ${kept}. Make it writable, or set BONSAI_HOME to a writable folder`;
    case "denied":
      return `Cannot use '${dir}' (BONSAI_HOME): permission denied; ${kept}. Give your user access to it, or set BONSAI_HOME to another folder`;
    case "io": {
      const extended = sqliteExtendedCode(err);
      const detail = extended !== null
        ? ` (SQLite code ${extended})`
        : sqliteCode(err) === null
        ? ` (${messageOf(err)})`
        : "";
      return `Cannot write to '${dir}' (BONSAI_HOME): disk I/O error${detail}; ${kept}. Check the disk and try again`;
    }
  }
}

/** The failure a probe write in `dir` meets, or null when writing there works. */
function probedFailure(dir: string): StorageFailure | null {
  const err = probeWrite(dir);
  const os = osCode(err);
  return os === null ? null : OS_CODES[os] ?? null;
}

function osCode(err: unknown): string | null {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" && code in OS_CODES ? code : null;
}

function isLow(free: number | null): boolean {
  return free !== null && free < LOW_SPACE;
}

/** 0 -> "0 B", 1536 -> "1.5 KiB", 3 << 30 -> "3.0 GiB". */
export function formatSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0
    ? `${value} B`
    : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
