import { BonsaiError, messageOf } from "../errors.ts";

/** SQLite primary result codes we react to. */
export const SQLITE_PERM = 3;
export const SQLITE_BUSY = 5;
export const SQLITE_LOCKED = 6;
export const SQLITE_READONLY = 8;
export const SQLITE_IOERR = 10;
export const SQLITE_CORRUPT = 11;
export const SQLITE_FULL = 13;
export const SQLITE_CANTOPEN = 14;
export const SQLITE_NOTADB = 26;

/**
 * SQLite's text for each code we react to (sqlite3_errstr; an error may add ": detail").
 * Deno's node:sqlite puts the (extended) result code on errors from prepared statements;
 * errors from `exec` and `backup`, and some from opening a file, carry just this text.
 */
const TEXTS: readonly (readonly [string, number])[] = [
  ["database or disk is full", SQLITE_FULL],
  ["disk I/O error", SQLITE_IOERR],
  ["attempt to write a readonly database", SQLITE_READONLY],
  ["unable to open database file", SQLITE_CANTOPEN],
  ["access permission denied", SQLITE_PERM],
  ["database is locked", SQLITE_BUSY],
  ["database table is locked", SQLITE_LOCKED],
  ["database disk image is malformed", SQLITE_CORRUPT],
  ["file is not a database", SQLITE_NOTADB],
];

/** The SQLite primary result code carried by a node:sqlite error, or null. */
export function sqliteCode(err: unknown): number | null {
  const extended = sqliteExtendedCode(err);
  if (extended !== null) return extended & 0xff;
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== "ERR_SQLITE_ERROR") {
    return null;
  }
  return TEXTS.find(([text]) => err.message.startsWith(text))?.[1] ?? null;
}

/** The extended result code of a node:sqlite error (e.g. 4874, SQLITE_IOERR_SHMSIZE), or null. */
export function sqliteExtendedCode(err: unknown): number | null {
  if (err && typeof err === "object" && "errcode" in err && typeof err.errcode === "number") {
    return err.errcode;
  }
  return null;
}

/**
 * Whether `err` is a UNIQUE constraint failure. Deno's node:sqlite gives errors from
 * `exec` no result code, so the message is what tells.
 */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith("UNIQUE constraint failed");
}

/** Turns low-level SQLite failures on the database file into user-facing errors. */
export function describeOpenError(err: unknown, path: string): unknown {
  const code = sqliteCode(err);
  if (code === SQLITE_NOTADB) {
    return new BonsaiError(
      "DB_NOT_SQLITE",
      `'${path}' is not a SQLite database; bonsai will not touch it. Move it away or set BONSAI_HOME to another folder`,
      { cause: err },
    );
  }
  if (code === SQLITE_CORRUPT) {
    return new BonsaiError(
      "DB_CORRUPT",
      `Database '${path}' is damaged (${
        messageOf(err)
      }); restore a backup with 'bonsai db restore <name>'`,
      { cause: err },
    );
  }
  if (code === SQLITE_BUSY || code === SQLITE_LOCKED) {
    return new BonsaiError(
      "DB_BUSY",
      `Database '${path}' stayed locked by another process; try again`,
      { cause: err },
    );
  }
  return err;
}
