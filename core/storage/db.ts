import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { Clock } from "../clock.ts";
import type { Home } from "../home.ts";
import type { Redactor } from "../secrets.ts";
import { BonsaiError } from "../errors.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { ensurePrivateDir, ensurePrivateFile, hardenHome } from "./files.ts";
import { latestVersion, migrate, type Migration } from "./migrate.ts";
import { describeOpenError } from "./sqlite_errors.ts";
import { describeDatabaseError } from "./storage_errors.ts";
import { connect } from "./connection.ts";

/** A bound value for a prepared statement. */
export type SqlValue = SQLInputValue;

/** Options for opening the bonsai database. */
export interface OpenOptions {
  readonly home: Home;
  readonly clock: Clock;
  readonly redactor: Redactor;
  /** Defaults to the migrations bundled with this binary. */
  readonly migrations?: readonly Migration[];
}

/** An open bonsai database: one connection, cached statements, explicit transactions. */
export class Db {
  readonly #conn: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  /** What runs once the open transaction commits (see afterCommit). */
  #committed: (() => void)[] = [];
  readonly path: string;
  readonly home: Home;
  readonly clock: Clock;
  readonly redactor: Redactor;

  constructor(conn: DatabaseSync, options: OpenOptions) {
    this.#conn = conn;
    this.home = options.home;
    this.path = options.home.dbPath;
    this.clock = options.clock;
    this.redactor = options.redactor;
  }

  /** The raw connection, for the storage layer's own modules only. */
  get connection(): DatabaseSync {
    return this.#conn;
  }

  /** A cached prepared statement. */
  prepare(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#conn.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Runs `fn` in a `BEGIN IMMEDIATE` transaction; nested calls join the outer one. A failure
   * rolls it back (earlier commits stay) and is thrown as a user-facing error when the disk
   * or the database is the cause (see describeDatabaseError), else as it is.
   */
  write<T>(fn: () => T): T {
    if (this.#conn.isTransaction) return fn();
    this.#begin("BEGIN IMMEDIATE");
    return this.#finish(fn);
  }

  /** Runs `fn` in a read transaction so several statements see one snapshot. */
  read<T>(fn: () => T): T {
    if (this.#conn.isTransaction) return fn();
    this.#begin("BEGIN");
    return this.#finish(fn);
  }

  /**
   * Runs `fn` once the outermost transaction has committed (at once outside one); if that
   * transaction rolls back, `fn` never runs. For state kept beside the database, such as "these
   * changes are saved", which a write nested in a failing transaction must not claim.
   */
  afterCommit(fn: () => void): void {
    if (this.#conn.isTransaction) this.#committed.push(fn);
    else fn();
  }

  /**
   * Sets how many WAL pages trigger an automatic checkpoint inside a commit (0: never).
   * Interactive processes turn it off and checkpoint between flushes instead, so no flush
   * pays for copying the WAL into the database.
   */
  setAutoCheckpoint(pages: number): void {
    this.#conn.exec(`PRAGMA wal_autocheckpoint = ${Math.max(0, Math.floor(pages))}`);
  }

  /** Page cache of this connection, in KiB (bulk writers raise it; SQLite's default is 2 MiB). */
  setCacheSize(kib: number): void {
    this.#conn.exec(`PRAGMA cache_size = -${Math.max(64, Math.floor(kib))}`);
  }

  /**
   * A passive checkpoint: copies what it can without waiting for other connections. When
   * it fails (no room for the database file to grow) every commit is still in the WAL.
   */
  checkpoint(): void {
    try {
      this.#conn.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
    } catch (err) {
      throw this.#describe(err);
    }
  }

  /**
   * SQLite's data version: it changes when another connection commits. A cheap probe for
   * "a peer wrote something" (no query of any table).
   */
  dataVersion(): number {
    return (this.#conn.prepare("PRAGMA data_version").get() as { data_version: number })
      .data_version;
  }

  /** Closes the connection; the last one out checkpoints the WAL. */
  close(): void {
    this.#statements.clear();
    if (this.#conn.isOpen) this.#conn.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** Runs `fn` in the transaction just begun, then commits (and runs what waited for it) or rolls back. */
  #finish<T>(fn: () => T): T {
    let result: T;
    try {
      result = fn();
      this.#conn.exec("COMMIT");
    } catch (err) {
      this.#committed = [];
      this.#rollback();
      throw this.#describe(err);
    }
    const waiting = this.#committed;
    this.#committed = [];
    for (const f of waiting) f();
    return result;
  }

  #begin(sql: string): void {
    try {
      this.#conn.exec(sql);
    } catch (err) {
      throw this.#describe(err);
    }
  }

  #rollback(): void {
    if (!this.#conn.isTransaction) return; // SQLite rolled back already (e.g. SQLITE_FULL)
    try {
      this.#conn.exec("ROLLBACK");
    } catch {
      // The failure that brought us here is the one to report. A rollback that fails
      // (after an I/O error) leaves the transaction to SQLite, which discards it when the
      // connection closes; nothing of it was committed.
    }
  }

  #describe(err: unknown): unknown {
    return describeDatabaseError(err, this.home);
  }
}

/** Bytes a WAL file is truncated to when SQLite resets it after a checkpoint. */
const WAL_SIZE_LIMIT = 64 << 20;

/**
 * Runs `fn` with SQLite's sorts spilling to temporary files instead of memory: building an
 * index over a big table sorts all of its keys.
 */
export function withDiskSorts<T>(db: Db, fn: () => T): T {
  const setMemory = () => db.connection.exec("PRAGMA temp_store = MEMORY");
  db.connection.exec("PRAGMA temp_store = FILE");
  let result: T;
  try {
    result = fn();
  } catch (err) {
    try {
      setMemory();
    } catch {
      // The failed sort (a full disk, say) is what to report, not this follow-on failure.
    }
    throw err;
  }
  setMemory();
  return result;
}

/** Whether the schema has an index of this name. */
export function hasIndex(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(name) !==
    undefined;
}

/**
 * Opens (creating if needed) `$BONSAI_HOME/bonsai.db`: checks it is a SQLite database whose
 * schema this binary understands, hardens permissions, enables WAL and foreign keys, and
 * runs pending migrations behind a verified online backup.
 */
export async function openDatabase(options: OpenOptions): Promise<Db> {
  try {
    return await open(options);
  } catch (err) {
    throw describeDatabaseError(err, options.home);
  }
}

async function open(options: OpenOptions): Promise<Db> {
  const { home } = options;
  const migrations = options.migrations ?? MIGRATIONS;
  ensurePrivateDir(home.dir);
  ensurePrivateFile(home.dbPath);
  const conn = connect(home.dbPath);
  try {
    const version = readVersion(conn, home.dbPath);
    const latest = latestVersion(migrations);
    if (version > latest) {
      throw new BonsaiError(
        "DB_TOO_NEW",
        `Database '${home.dbPath}' has schema version ${version}, newer than this bonsai understands (${latest}); upgrade bonsai, or restore an older backup with 'bonsai db restore'`,
        { data: { path: home.dbPath, version, supported: latest } },
      );
    }
    hardenHome(home);
    const mode = conn.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode: string };
    if (mode.journal_mode !== "wal") {
      throw new BonsaiError(
        "IO",
        `Cannot switch '${home.dbPath}' to WAL mode (got '${mode.journal_mode}')`,
      );
    }
    // NORMAL is durable across process crashes in WAL mode; FAST secure_delete zeroes what
    // `forget` removes from b-tree pages at no extra I/O.
    // Statement journals (kept for every statement with triggers inside a transaction) live
    // in memory: on disk they cost a page write per page touched, ten times the data.
    // A WAL that grew (a big import checkpoints rarely) is cut back to 64 MiB when reset.
    conn.exec(
      "PRAGMA synchronous = NORMAL; PRAGMA secure_delete = FAST; PRAGMA temp_store = MEMORY; " +
        `PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`,
    );
    if (version < latest) {
      await migrate({ conn, home, clock: options.clock, migrations, from: version });
      hardenHome(home);
    }
    return new Db(conn, options);
  } catch (err) {
    conn.close();
    throw err;
  }
}

function readVersion(conn: DatabaseSync, path: string): number {
  try {
    // Reading sqlite_schema forces SQLite to parse page 1: a non-database fails here,
    // before anything has been written.
    conn.prepare("SELECT count(*) AS n FROM sqlite_schema").get();
    const row = conn.prepare("PRAGMA user_version").get() as { user_version: number };
    return row.user_version;
  } catch (err) {
    throw describeOpenError(err, path);
  }
}
