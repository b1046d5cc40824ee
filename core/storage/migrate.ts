import type { DatabaseSync } from "node:sqlite";
import type { Clock } from "../clock.ts";
import type { Home } from "../home.ts";
import { BonsaiError, messageOf } from "../errors.ts";
import { copyBackupInto, takeBackup } from "./backups.ts";
import { connect } from "./connection.ts";

/** One forward-only schema step; `version` is the `user_version` after it. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The schema version the given migrations lead to. */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** Inputs of a migration run. */
export interface MigrateOptions {
  /** The caller's connection; used to read the pre-migration state and take the backup. */
  readonly conn: DatabaseSync;
  readonly home: Home;
  readonly clock: Clock;
  readonly migrations: readonly Migration[];
  /** user_version seen when the database was opened. */
  readonly from: number;
}

/**
 * Applies pending migrations in one transaction on a second connection that holds the
 * write lock throughout, so no other process writes between the backup and the upgrade.
 * An existing database is first backed up (online backup API, integrity-checked). If a
 * migration throws, the transaction rolls back; if anything was committed anyway (a
 * migration that escaped its transaction), the backup is copied back. Either way the
 * command fails naming the migration and the backup.
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  const { conn, home, clock } = options;
  const migrations = [...options.migrations].sort((a, b) => a.version - b.version);
  checkOrder(migrations);
  // Migrations run with foreign keys off (SQLite's table-rebuild recipe needs it);
  // foreign_key_check below guards the result instead.
  const writer = connect(home.dbPath);
  writer.exec("PRAGMA foreign_keys = OFF");
  let backupPath: string | null = null;
  try {
    writer.exec("BEGIN IMMEDIATE");
    const from = versionOf(writer);
    const pending = migrations.filter((m) => m.version > from);
    if (pending.length === 0) {
      writer.exec("ROLLBACK"); // another process upgraded it while we waited
      return;
    }
    if (from > 0 || hasObjects(writer)) {
      assertHealthy(conn, home.dbPath);
      backupPath = await takeBackup(conn, { home, clock, version: from });
    }
    const dataVersion = dataVersionOf(conn);
    for (const migration of pending) {
      try {
        writer.exec(migration.sql);
        writer.exec(`PRAGMA user_version = ${migration.version}`);
      } catch (err) {
        if (writer.isTransaction) writer.exec("ROLLBACK");
        const restored = await restoreIfChanged(conn, dataVersion, backupPath, home.dbPath);
        throw failure(migration, from, backupPath, restored, err);
      }
    }
    const violations = writer.prepare("PRAGMA foreign_key_check").all();
    if (violations.length > 0) {
      writer.exec("ROLLBACK");
      const last = pending[pending.length - 1]!;
      throw failure(last, from, backupPath, false, `${violations.length} foreign key violations`);
    }
    writer.exec("COMMIT");
  } finally {
    if (writer.isTransaction) writer.exec("ROLLBACK");
    writer.close();
  }
}

function failure(
  migration: Migration,
  from: number,
  backupPath: string | null,
  restored: boolean,
  cause: unknown,
): BonsaiError {
  const state = restored
    ? `the database was restored from the backup '${backupPath}'`
    : backupPath
    ? `the database is unchanged at schema version ${from}; backup kept at '${backupPath}'`
    : `the database is unchanged at schema version ${from}`;
  return new BonsaiError(
    "MIGRATION_FAILED",
    `Migration '${migration.name}' failed: ${messageOf(cause)}; ${state}`,
    { data: { migration: migration.name, from, backup: backupPath, restored }, cause },
  );
}

/** If another connection committed since `before`, puts the backup back. */
async function restoreIfChanged(
  conn: DatabaseSync,
  before: number,
  backupPath: string | null,
  dbPath: string,
): Promise<boolean> {
  if (dataVersionOf(conn) === before || backupPath === null) return false;
  await copyBackupInto(backupPath, dbPath);
  conn.exec("PRAGMA journal_mode = WAL"); // the backup file is in rollback-journal mode
  return true;
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new RangeError(
        `Migrations must be numbered 1..n without gaps; found ${m.version} at ${i + 1}`,
      );
    }
  });
}

function versionOf(conn: DatabaseSync): number {
  return (conn.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function dataVersionOf(conn: DatabaseSync): number {
  return (conn.prepare("PRAGMA data_version").get() as { data_version: number }).data_version;
}

function hasObjects(conn: DatabaseSync): boolean {
  return (conn.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number }).n > 0;
}

function assertHealthy(conn: DatabaseSync, path: string): void {
  const rows = conn.prepare("PRAGMA quick_check").all() as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
  if (problems.length > 0) {
    throw new BonsaiError(
      "DB_CORRUPT",
      `Database '${path}' failed quick_check (${
        problems.slice(0, 3).join("; ")
      }); not upgrading it. Restore a backup with 'bonsai db restore <name>'`,
    );
  }
}
