import type { ErrorCode } from "../core/errors.ts";

/** Exit codes, documented in README.md. */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  DATABASE: 4,
  CONFLICT: 5,
  BUDGET_EXHAUSTED: 6,
  PROVIDER: 7,
  VERIFY_FAILED: 8,
  CANCELLED: 130,
  TERMINATED: 143,
} as const;

/** The exit code for an error code. */
export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case "USAGE":
    case "CONFIRMATION_REQUIRED":
    case "CONFIG":
    case "BAD_REQUEST":
    case "BODY_TOO_LARGE":
    case "UNAUTHENTICATED":
      return EXIT.USAGE;
    case "NOT_FOUND":
    case "AMBIGUOUS_ID":
      return EXIT.NOT_FOUND;
    case "DB_TOO_NEW":
    case "DB_NOT_SQLITE":
    case "DB_CORRUPT":
    case "DB_BUSY":
    case "MIGRATION_FAILED":
    case "BACKUP_FAILED":
    case "DISK_FULL":
    case "STORAGE_READ_ONLY":
    case "STORAGE_DENIED":
    case "STORAGE_IO":
      return EXIT.DATABASE;
    case "SESSION_LIVE":
    case "CROSS_PROJECT":
    case "LEASE_LOST":
    case "SESSION_TAKEN":
    case "LEASE_BUSY":
    case "FILES_CHANGED":
    case "SESSION_BUSY":
      return EXIT.CONFLICT;
    case "BUDGET_EXHAUSTED":
      return EXIT.BUDGET_EXHAUSTED;
    case "PROVIDER":
      return EXIT.PROVIDER;
    case "CANCELLED":
      return EXIT.CANCELLED;
    case "IO":
    case "INTERNAL":
    case "TOO_MANY_REQUESTS":
      return EXIT.FAILURE;
  }
}
