/** Stable error codes; commands map them to exit codes in one place (main.ts). */
export type ErrorCode =
  | "USAGE" // bad argv, config or other input from the user
  | "NOT_FOUND" // unknown session, backup, project
  | "AMBIGUOUS_ID" // an id prefix matching several sessions
  | "CONFIRMATION_REQUIRED" // a destructive command needs --yes without a terminal
  | "DB_TOO_NEW" // database schema newer than this binary
  | "DB_NOT_SQLITE" // the database path holds something else
  | "DB_CORRUPT" // quick_check/integrity_check failed
  | "DB_BUSY" // another process held the database too long
  | "MIGRATION_FAILED"
  | "BACKUP_FAILED"
  | "DISK_FULL" // a write to BONSAI_HOME found no space left
  | "STORAGE_READ_ONLY" // BONSAI_HOME is on a read-only file system
  | "STORAGE_DENIED" // the operating system refused access to BONSAI_HOME
  | "STORAGE_IO" // any other disk I/O error under BONSAI_HOME
  | "SESSION_LIVE" // another live process owns the session
  | "CROSS_PROJECT" // session belongs to another project
  | "LEASE_LOST" // fencing token no longer current
  | "SESSION_TAKEN" // another process took the session over (its epoch moved on)
  | "LEASE_BUSY" // the project's write lease stayed with another process
  | "FILES_CHANGED" // files a rewind would revert changed since bonsai wrote them
  | "CONFIG" // provider or setting misconfigured
  | "PROVIDER" // provider failed after retries
  | "BUDGET_EXHAUSTED"
  | "CANCELLED"
  | "BAD_REQUEST" // an HTTP request the API cannot take (bad JSON, a wrong field)
  | "BODY_TOO_LARGE" // an HTTP body over the limit
  | "UNAUTHENTICATED" // no valid token, cookie or password
  | "TOO_MANY_REQUESTS" // too many failed logins from one client
  | "SESSION_BUSY" // a turn already runs in the session
  | "IO"
  | "INTERNAL";

/** The one error type bonsai raises on purpose; its message is written for the user. */
export class BonsaiError extends Error {
  readonly code: ErrorCode;
  readonly data?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "BonsaiError";
    this.code = code;
    this.data = options.data;
  }

  /** Shape used by --json error output. */
  toJSON(): { code: ErrorCode; message: string; data?: Record<string, unknown> } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** True when `err` is a BonsaiError with one of the given codes. */
export function isBonsaiError(err: unknown, ...codes: ErrorCode[]): err is BonsaiError {
  return err instanceof BonsaiError && (codes.length === 0 || codes.includes(err.code));
}

/** The message of any thrown value, for wrapping foreign errors. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
