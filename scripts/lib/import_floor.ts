// What an import could cost at best on this machine, to read the import's time against:
// the SQLite work alone (the imported rows copied into a fresh database, with no JavaScript
// per row) and the JSON parsing alone (every line of the logs through JSON.parse, nothing
// kept). The import does both, on two threads, plus everything between them.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { findFiles, readLineBatches } from "../../core/import/jsonl_reader.ts";
import { createRedactor } from "../../core/secrets.ts";
import { openDatabase } from "../../core/storage/db.ts";
import { EXTERNAL_INDEX } from "../../core/storage/ledger.ts";
import { DURATION_INDEX } from "../../core/storage/tool_calls.ts";

/** Rows per transaction, as the import commits. */
const CHUNK = 10_000;

/** Tables an import writes row by row, in the order it writes them in a commit. */
const ROW_TABLES = ["messages", "ledger", "tool_calls"] as const;

/** Small tables the import maintains beside them (copied whole, once). */
const SMALL_TABLES = [
  "usage_rollup",
  "usage_hour",
  "usage_hour_sum",
  "usage_day_model",
  "tool_rollup",
  "tool_day",
  "import_files",
] as const;

export interface SqlFloor {
  readonly total_ms: number;
  readonly tables_ms: Record<string, number>;
  /** Building the indexes a bulk import drops, and the final checkpoint. */
  readonly finish_ms: number;
  readonly db_bytes: number;
}

/**
 * Copies the rows of the imported database at `source` into a fresh bonsai database in
 * `scratch` (removed afterwards) the way a bulk import writes them: 10,000 rows per
 * transaction, FTS5 fed by the schema's trigger, the two indexes a bulk import drops built
 * at the end, and the same page cache and checkpoint settings. The CJK bigram index is
 * left out (a contentless table cannot be copied), so this is a lower bound.
 */
export async function sqlFloor(source: string, scratch: string): Promise<SqlFloor> {
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
  const home = homeAt(scratch);
  const fresh = await openDatabase({ home, clock: systemClock, redactor: createRedactor() });
  fresh.close();
  const db = new DatabaseSync(home.dbPath);
  try {
    db.exec(
      "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 65536",
    );
    db.exec(`ATTACH DATABASE '${source.replaceAll("'", "''")}' AS src`);
    const dropped = db.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN (?, ?)",
    ).all(EXTERNAL_INDEX, DURATION_INDEX) as { name: string; sql: string }[];
    const started = performance.now();
    for (const i of dropped) db.exec(`DROP INDEX ${i.name}`);
    db.exec(
      "BEGIN; INSERT INTO projects SELECT * FROM src.projects; " +
        "INSERT INTO sessions SELECT * FROM src.sessions; COMMIT",
    );
    const tables_ms: Record<string, number> = {};
    for (const table of ROW_TABLES) {
      const t = performance.now();
      const { last } = db.prepare(`SELECT coalesce(max(id), 0) AS last FROM src.${table}`)
        .get() as { last: number };
      const copy = db.prepare(
        `INSERT INTO main.${table} SELECT * FROM src.${table} WHERE id > ? AND id <= ?`,
      );
      for (let from = 0; from < last; from += CHUNK) {
        db.exec("BEGIN");
        copy.run(from, from + CHUNK);
        db.exec("COMMIT");
      }
      tables_ms[table] = Math.round(performance.now() - t);
    }
    const small = performance.now();
    db.exec("BEGIN");
    for (const table of SMALL_TABLES) {
      db.exec(`INSERT INTO main.${table} SELECT * FROM src.${table}`);
    }
    db.exec("COMMIT");
    tables_ms.rollups = Math.round(performance.now() - small);
    const finish = performance.now();
    for (const i of dropped) db.exec(i.sql);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const end = performance.now();
    return {
      total_ms: Math.round(end - started),
      tables_ms,
      finish_ms: Math.round(end - finish),
      db_bytes: Deno.statSync(home.dbPath).size,
    };
  } finally {
    db.close();
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

/** Every line of the `.jsonl` files under `dir` read, decoded and given to JSON.parse, on one thread. */
export async function parseFloor(dir: string): Promise<{ ms: number; lines: number }> {
  const files = await findFiles(join(dir, "projects"), (n) => n.endsWith(".jsonl"));
  const started = performance.now();
  let lines = 0;
  for (const path of files) {
    for (const batch of readLineBatches(path, 0)) {
      for (const line of batch.lines) {
        if (line === "") continue;
        try {
          JSON.parse(line);
          lines++;
        } catch {
          // the generator writes a few malformed lines on purpose
        }
      }
    }
  }
  return { ms: Math.round(performance.now() - started), lines };
}
