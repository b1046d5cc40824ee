import { DatabaseSync } from "node:sqlite";

/** How long a writer waits for another process's lock before failing. */
export const BUSY_TIMEOUT_MS = 5000;

/** A connection with bonsai's per-connection settings (busy timeout, foreign keys). */
export function connect(path: string, options: { readOnly?: boolean } = {}): DatabaseSync {
  const conn = new DatabaseSync(path, {
    readOnly: options.readOnly ?? false,
    timeout: BUSY_TIMEOUT_MS,
    enableForeignKeyConstraints: true,
  });
  conn.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return conn;
}
