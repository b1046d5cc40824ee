// Removing a secret that is already stored (S4): a value that reached the database before
// bonsai knew it was secret is replaced in every text column of every table, dropped from the
// search indexes, and vacuumed out of the file and its WAL. Generic over the schema, so it
// works on backups of any version too.

import type { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import type { Home } from "../home.ts";
import { BonsaiError, messageOf } from "../errors.ts";
import { MIN_SECRET_LENGTH, secretForms } from "../secrets.ts";
import { fileContains } from "./byte_scan.ts";
import { cjkGrams } from "./cjk.ts";
import { connect } from "./connection.ts";
import type { Db } from "./db.ts";
import { type ActiveSessionRow, SessionStore } from "./sessions.ts";
import { describeOpenError, sqliteCode } from "./sqlite_errors.ts";

/** What replaces the value, as the redactor writes it. */
export const SCRUB_REPLACEMENT = "[REDACTED:secret]";

/** What scrubbing one database changed. */
export interface ScrubReport {
  /** Rows changed per table, for the tables that had any, by table name. */
  readonly tables: readonly { readonly table: string; readonly rows: number }[];
  /** Rows changed over all tables. */
  readonly rows: number;
  /** Whether the WAL was emptied at the end (false while another connection still read it). */
  readonly walTruncated: boolean;
  /** Sessions live in other processes, which went ahead only with `force`. */
  readonly liveSessions: number;
}

/**
 * Scrubs the open bonsai database: replaces the value (and its JSON-escaped forms) in every
 * table in one transaction, rebuilds the search indexes, then checkpoints and vacuums so the
 * bytes leave the file and the WAL. Refuses while a session is live in another process
 * (`liveElsewhere`, the liveness rule, decides), unless `force`: that process still holds
 * the value and may write it again.
 */
export function scrubDatabase(
  db: Db,
  options: {
    value: string;
    liveElsewhere: (row: ActiveSessionRow) => boolean;
    force?: boolean;
  },
): ScrubReport {
  const forms = secretForms(checked(options.value));
  const { tables, live } = db.write(() => {
    const live = new SessionStore(db).active().filter(options.liveElsewhere);
    if (live.length > 0 && !options.force) {
      throw new BonsaiError(
        "SESSION_LIVE",
        `Cannot scrub while ${live.length} session(s) are live (e.g. '${live[0]!.id}' in process ${
          live[0]!.ownerPid ?? "?"
        }); quit them first or pass --force`,
      );
    }
    return { tables: rewrite(db.connection, forms), live };
  });
  return report(tables, db.connection, live.length);
}

/** Scrubs a database file no process is using (a backup) the same way. */
export function scrubDatabaseFile(path: string, value: string): ScrubReport {
  const conn = connect(path);
  try {
    try {
      conn.prepare("SELECT count(*) FROM sqlite_schema").get();
    } catch (err) {
      throw describeOpenError(err, path);
    }
    const forms = secretForms(checked(value));
    conn.exec("BEGIN IMMEDIATE");
    let tables: TableRows[];
    try {
      tables = rewrite(conn, forms);
      conn.exec("COMMIT");
    } catch (err) {
      if (conn.isTransaction) conn.exec("ROLLBACK");
      throw err;
    }
    return report(tables, conn, 0);
  } finally {
    conn.close();
  }
}

/**
 * Whether the database file or its WAL or rollback journal still hold the value's bytes.
 * Only call it with no connection to the database open in this process (see fileContains).
 */
export function databaseHolds(path: string, value: string): boolean {
  const forms = secretForms(checked(value));
  return ["", "-wal", "-journal"].some((suffix) => fileContains(path + suffix, forms));
}

/** A backup file that held the value, and what scrubbing it did (when asked to). */
export interface BackupScrub {
  readonly path: string;
  /** What scrubbing changed; null when not asked to, or when it failed. */
  readonly report: ScrubReport | null;
  /** Whether the file no longer holds the value's bytes. */
  readonly clean: boolean;
  /** Why it could not be scrubbed (not a database, say), or null. */
  readonly error: string | null;
}

/**
 * The files in `$BONSAI_HOME/backups` whose bytes hold the value; with `scrub`, each is
 * scrubbed like the database. A file that cannot be scrubbed is reported, not thrown, so
 * the others still are.
 */
export function scrubBackups(
  home: Home,
  value: string,
  options: { scrub: boolean },
): BackupScrub[] {
  return backupsHolding(home, value).map((path) => {
    if (!options.scrub) return { path, report: null, clean: false, error: null };
    try {
      const report = scrubDatabaseFile(path, value);
      return { path, report, clean: !databaseHolds(path, value), error: null };
    } catch (err) {
      if (!(err instanceof BonsaiError) && sqliteCode(err) === null) throw err;
      return { path, report: null, clean: false, error: messageOf(err) };
    }
  });
}

/** Every file in `$BONSAI_HOME/backups` whose bytes hold the value, by name. */
export function backupsHolding(home: Home, value: string): string[] {
  const forms = secretForms(checked(value));
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(home.backupsDir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return entries
    .filter((e) => e.isFile && fileContains(join(home.backupsDir, e.name), forms))
    .map((e) => join(home.backupsDir, e.name))
    .sort();
}

function checked(value: string): string {
  if (value.length < MIN_SECRET_LENGTH) {
    throw new RangeError(`A value to scrub needs at least ${MIN_SECRET_LENGTH} characters`);
  }
  return value;
}

/** Replaces the value everywhere and refreshes the search indexes (inside a transaction). */
function rewrite(conn: DatabaseSync, forms: readonly string[]): TableRows[] {
  const tables = replaceEverywhere(conn, forms);
  refreshSearchIndexes(conn);
  return tables;
}

/** Vacuums after the committed rewrite and sums it up. */
function report(tables: TableRows[], conn: DatabaseSync, liveSessions: number): ScrubReport {
  const rows = tables.reduce((n, t) => n + t.rows, 0);
  let walTruncated: boolean;
  try {
    walTruncated = compact(conn);
  } catch (err) {
    // The replacement is committed; only the old bytes in free pages and the WAL remain.
    throw new BonsaiError(
      "IO",
      `Replaced the value in ${rows} row(s) but cannot vacuum the database (${
        messageOf(err)
      }); its old bytes may remain until 'bonsai db scrub' runs again`,
      { cause: err },
    );
  }
  return { tables, rows, walTruncated, liveSessions };
}

interface TableRows {
  readonly table: string;
  readonly rows: number;
}

interface TextTable {
  readonly name: string;
  readonly columns: readonly string[];
}

/** Ordinary tables (no virtual, shadow or internal ones) with the columns that may hold text. */
function textTables(conn: DatabaseSync): TextTable[] {
  const tables = conn.prepare(
    `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table'
       AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`,
  ).all() as { name: string }[];
  const triggered = new Set(
    (conn.prepare("SELECT DISTINCT tbl_name FROM sqlite_schema WHERE type = 'trigger'")
      .all() as { tbl_name: string }[]).map((r) => r.tbl_name),
  );
  const columns = conn.prepare("SELECT name, type, hidden FROM pragma_table_xinfo(?)");
  const out = tables.map(({ name }) => ({
    name,
    columns: (columns.all(name) as { name: string; type: string; hidden: number }[])
      .filter((c) => c.hidden === 0 && mayHoldText(c.type))
      .map((c) => c.name),
  })).filter((t) => t.columns.length > 0);
  // Tables whose triggers keep copies elsewhere (search index, usage rollups keyed by model
  // or tool name) go first: their triggers move those copies, which then hold no match.
  return out.sort((a, b) =>
    Number(triggered.has(b.name)) - Number(triggered.has(a.name)) || a.name.localeCompare(b.name)
  );
}

/** TEXT affinity (a declared type naming CHAR, CLOB or TEXT), or no declared type at all. */
function mayHoldText(declared: string): boolean {
  const t = declared.toUpperCase();
  if (t.includes("INT")) return false;
  return t === "" || t.includes("CHAR") || t.includes("CLOB") || t.includes("TEXT");
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function replaceEverywhere(conn: DatabaseSync, forms: readonly string[]): TableRows[] {
  const out: TableRows[] = [];
  const hasCjk = conn.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'messages_cjk'").get();
  for (const table of textTables(conn)) {
    // Forms are bound as ?1..?n, longest first: a twice-escaped form contains no other.
    const holds = (c: string) =>
      `(typeof(${c}) = 'text' AND (${
        forms.map((_, i) => `instr(${c}, ?${i + 1}) > 0`).join(" OR ")
      }))`;
    const swap = (c: string) =>
      forms.reduce((expr, _, i) => `replace(${expr}, ?${i + 1}, '${SCRUB_REPLACEMENT}')`, c);
    const cols = table.columns.map(quote);
    const where = cols.map(holds).join(" OR ");
    const name = quote(table.name);
    // The storage layer, not a trigger, writes the CJK index; the update trigger drops the
    // rows of the messages it touches, so they are indexed again below.
    const reindex = table.name === "messages" && hasCjk
      ? (conn.prepare(`SELECT id FROM messages WHERE ${where}`).all(...forms) as { id: number }[])
        .map((r) => r.id)
      : [];
    let rows: number;
    try {
      rows = Number(
        conn.prepare(
          `UPDATE ${name} SET ${
            cols.map((c) => `${c} = CASE WHEN typeof(${c}) = 'text' THEN ${swap(c)} ELSE ${c} END`)
              .join(", ")
          } WHERE ${where}`,
        ).run(...forms).changes,
      );
    } catch (err) {
      if (!/constraint failed/i.test(messageOf(err))) throw err;
      throw new BonsaiError(
        "USAGE",
        `Cannot scrub: the value is part of a constrained field of table '${table.name}' (${
          messageOf(err)
        }); is it really a secret?`,
        { cause: err },
      );
    }
    if (reindex.length > 0) reindexCjk(conn, reindex);
    if (rows > 0) out.push({ table: table.name, rows });
  }
  return out;
}

function reindexCjk(conn: DatabaseSync, ids: readonly number[]): void {
  const read = conn.prepare("SELECT text FROM messages WHERE id = ?");
  const drop = conn.prepare("DELETE FROM messages_cjk WHERE rowid = ?");
  const add = conn.prepare("INSERT INTO messages_cjk (rowid, grams) VALUES (?, ?)");
  for (const id of ids) {
    const row = read.get(id) as { text: string } | undefined;
    drop.run(id);
    const grams = row ? cjkGrams(row.text) : "";
    if (grams) add.run(id, grams);
  }
}

/**
 * Makes every FTS5 index forget the old tokens: an external-content index is rebuilt from
 * its (now clean) table; any other is optimized, which merges its segments into one and so
 * drops deleted entries (a delete alone only adds a tombstone beside the old tokens).
 */
function refreshSearchIndexes(conn: DatabaseSync): void {
  const indexes = conn.prepare(
    `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`,
  ).all() as { name: string; sql: string }[];
  for (const { name, sql } of indexes) {
    if (!/\bUSING\s+fts5\b/i.test(sql)) continue;
    const external = /\bcontent\s*=/i.test(sql) && !/\bcontent\s*=\s*(''|"")/i.test(sql);
    const q = quote(name);
    conn.exec(`INSERT INTO ${q}(${q}) VALUES ('${external ? "rebuild" : "optimize"}')`);
  }
}

/**
 * Copies the WAL into the database and empties it, rewrites the file without free pages
 * (VACUUM), and empties the WAL again. Returns whether the WAL ended empty.
 */
function compact(conn: DatabaseSync): boolean {
  const wal = (conn.prepare("PRAGMA journal_mode").get() as { journal_mode: string })
    .journal_mode === "wal";
  const truncate = () =>
    (conn.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy === 0;
  if (wal) truncate();
  conn.exec("VACUUM");
  return wal ? truncate() : true;
}
