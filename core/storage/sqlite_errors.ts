import { BonsaiError, messageOf } from "../errors.ts";

/** SQLite primary result codes we react to. */
export const SQLITE_BUSY = 5;
export const SQLITE_LOCKED = 6;
export const SQLITE_CORRUPT = 11;
export const SQLITE_NOTADB = 26;

/** The SQLite primary result code carried by a node:sqlite error, or null. */
export function sqliteCode(err: unknown): number | null {
  if (err && typeof err === "object" && "errcode" in err && typeof err.errcode === "number") {
    return err.errcode & 0xff;
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
