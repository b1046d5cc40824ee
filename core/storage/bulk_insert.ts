import type { Db, SqlValue } from "./db.ts";

/**
 * Most rows per INSERT statement. A shorter tail goes in power-of-two chunks, so each
 * table caches at most nine statement shapes: one compiled statement per possible length
 * held ~50 MB for the messages table alone.
 */
const INSERT_ROWS = 256;

/** The sizes `count` rows are inserted in: full chunks, then powers of two. */
export function insertChunks(count: number): number[] {
  const sizes: number[] = [];
  let left = count;
  while (left >= INSERT_ROWS) {
    sizes.push(INSERT_ROWS);
    left -= INSERT_ROWS;
  }
  for (let size = INSERT_ROWS >> 1; left > 0; size >>= 1) {
    if (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

/**
 * Inserts `rows` (values in `columns` order) with multi-row INSERT statements, inside the
 * caller's transaction, and returns the rowid of the last one: the rows take
 * consecutive rowids ending there, since nobody else writes during the transaction. FTS5,
 * fed by trigger, writes one index segment per statement instead of one per row.
 */
export function insertRows(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly SqlValue[])[],
): number {
  const one = `(${columns.map(() => "?").join(", ")})`;
  let last = 0;
  let at = 0;
  for (const size of insertChunks(rows.length)) {
    const sql = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${
      new Array(size).fill(one).join(", ")
    }`;
    const { lastInsertRowid } = db.prepare(sql).run(...rows.slice(at, at + size).flat());
    at += size;
    last = Number(lastInsertRowid);
  }
  return last;
}
