import type { Db } from "./db.ts";

/**
 * The stored JSON text of every saved setting (any scope) that may be an `env:NAME`
 * reference, for the redactor to learn the values behind them (S4). Read by every command
 * that opens the database, so it is one small query on the settings table.
 */
export function savedReferenceValues(db: Db): string[] {
  const rows = db.prepare(`SELECT value FROM settings WHERE value LIKE '"env:%'`).all() as {
    value: string;
  }[];
  return rows.map((r) => r.value);
}
