import type { Home } from "../home.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { type BackupInfo, listBackups } from "./backups.ts";
import { connect } from "./connection.ts";
import { latestVersion } from "./migrate.ts";
import { describeDatabaseError } from "./storage_errors.ts";

/** What `bonsai db status` reports. Reading it never writes or migrates. */
export interface DatabaseStatus {
  readonly path: string;
  readonly exists: boolean;
  readonly schemaVersion: number | null;
  readonly supportedVersion: number;
  readonly sizeBytes: number;
  readonly walBytes: number;
  readonly journalMode: string | null;
  readonly projects: number | null;
  readonly sessions: number | null;
  readonly messages: number | null;
  readonly ledgerRows: number | null;
  /** integrity_check result when asked for ("ok" or the problems). */
  readonly integrity: string | null;
  readonly backups: readonly BackupInfo[];
}

/** Inspects the database without changing it. Throws for a file that is not a database. */
export function inspectDatabase(home: Home, options: { check?: boolean } = {}): DatabaseStatus {
  const supportedVersion = latestVersion(MIGRATIONS);
  const backups = listBackups(home);
  const size = (p: string) => {
    try {
      return Deno.statSync(p).size;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return -1;
      throw err;
    }
  };
  const sizeBytes = size(home.dbPath);
  const base = {
    path: home.dbPath,
    supportedVersion,
    sizeBytes: Math.max(0, sizeBytes),
    walBytes: Math.max(0, size(`${home.dbPath}-wal`)),
    backups,
  };
  if (sizeBytes <= 0) {
    return {
      ...base,
      exists: sizeBytes === 0,
      schemaVersion: sizeBytes === 0 ? 0 : null,
      journalMode: null,
      projects: null,
      sessions: null,
      messages: null,
      ledgerRows: null,
      integrity: null,
    };
  }
  const conn = connect(home.dbPath);
  try {
    const one = <T>(sql: string) => conn.prepare(sql).get() as T;
    let schemaVersion: number;
    try {
      one("SELECT count(*) FROM sqlite_schema");
      schemaVersion = one<{ user_version: number }>("PRAGMA user_version").user_version;
    } catch (err) {
      throw describeDatabaseError(err, home);
    }
    const count = (table: string) => {
      if (schemaVersion < 1 || schemaVersion > supportedVersion) return null;
      return one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).n;
    };
    let integrity: string | null = null;
    if (options.check) {
      const rows = conn.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
      integrity = rows.map((r) => r.integrity_check).join("; ");
    }
    return {
      ...base,
      exists: true,
      schemaVersion,
      journalMode: one<{ journal_mode: string }>("PRAGMA journal_mode").journal_mode,
      projects: count("projects"),
      sessions: count("sessions"),
      messages: count("messages"),
      ledgerRows: count("ledger"),
      integrity,
    };
  } finally {
    conn.close();
  }
}
