import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "../../../migrations/mod.ts";
import { homeAt } from "../../../core/home.ts";
import { listBackups } from "../../../core/storage/backups.ts";
import type { Migration } from "../../../core/storage/migrate.ts";
import type { Db } from "../../../core/storage/db.ts";
import { MessageStore } from "../../../core/storage/messages.ts";
import { openTestDb } from "../../support/db.ts";
import { fileHash, tempDir, treeHash } from "../../support/temp.ts";
import { rejectsWith } from "../../support/assert.ts";

const NEXT = MIGRATIONS.length + 1;
const V1 = MIGRATIONS.slice(0, 1);
const V2: Migration = {
  version: NEXT,
  name: "0002_test_add_note",
  sql: "ALTER TABLE sessions ADD COLUMN note TEXT; CREATE TABLE extra (x INTEGER);",
};
const FAILING: Migration = {
  version: NEXT,
  name: "0002_test_broken",
  sql: "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);",
};
// A buggy migration that commits part of its work before failing.
const ESCAPING: Migration = {
  version: NEXT,
  name: "0002_test_escapes",
  sql: "COMMIT; CREATE TABLE escaped (x INTEGER); INSERT INTO no_such_table VALUES (1);",
};

function dump(path: string): string {
  const conn = new DatabaseSync(path, { readOnly: true });
  try {
    const schema = conn.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all();
    const sessions = conn.prepare("SELECT id, title FROM sessions ORDER BY id").all();
    const messages = conn.prepare("SELECT session_id, seq, text FROM messages ORDER BY id").all();
    const version = conn.prepare("PRAGMA user_version").get();
    return JSON.stringify({ schema, sessions, messages, version });
  } finally {
    conn.close();
  }
}

/**
 * A session row written as an older schema has it (today's SessionStore writes columns that
 * later migrations add).
 */
function oldSession(db: Db, id: string, projectPath: string, title = "New conversation") {
  db.connection.prepare("INSERT INTO projects (root_path, created_at) VALUES (?, 0)").run(
    projectPath,
  );
  db.connection.prepare(
    `INSERT INTO sessions (id, project_id, title, cache_key, created_at, content_updated_at)
     VALUES (?, (SELECT id FROM projects WHERE root_path = ?), ?, 'k', 0, 0)`,
  ).run(id, projectPath, title);
  return {
    id,
    projectId: (db.connection.prepare("SELECT project_id FROM sessions WHERE id = ?").get(id) as {
      project_id: number;
    }).project_id,
  };
}

/** A database at schema v1 (the first migration only), with a session, a message and a ledger row. */
async function seedV1(dir: string): Promise<string> {
  const { db } = await openTestDb(dir, { migrations: V1 });
  const s = oldSession(db, "01kseedsession000000000000", "/work/app", "Keep me");
  new MessageStore(db).append(s.id, [{ role: "user", text: "remember the milk" }]);
  db.connection.prepare(
    `INSERT INTO ledger (session_id, project_id, seq, provider, model, input_tokens, output_tokens, cost_usd, created_at)
     VALUES (?, ?, 1, 'anthropic', 'claude-sonnet-4-5', 100, 20, 0.0006, 1800000)`,
  ).run(s.id, s.projectId);
  db.close();
  return s.id;
}

Deno.test("openDatabase() creates a fresh database at the latest version without a backup", async () => {
  await using dir = await tempDir();
  const { db } = await openTestDb(dir.path);
  const version = db.connection.prepare("PRAGMA user_version").get() as { user_version: number };
  assert.deepEqual(version.user_version, MIGRATIONS.length);
  const mode = db.connection.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
  assert.deepEqual(mode.journal_mode, "wal");
  const fk = db.connection.prepare("PRAGMA foreign_keys").get() as { foreign_keys: number };
  assert.deepEqual(fk.foreign_keys, 1);
  db.close();
  assert.deepEqual(listBackups(homeAt(dir.path)).length, 0);
});

Deno.test("openDatabase() upgrades v1 behind a verified backup and keeps the data", async () => {
  await using dir = await tempDir();
  const id = await seedV1(dir.path);
  const before = dump(join(dir.path, "bonsai.db"));
  const { db } = await openTestDb(dir.path, { migrations: [...MIGRATIONS, V2] });
  const row = db.connection.prepare("SELECT title, note FROM sessions WHERE id = ?").get(id) as {
    title: string;
    note: null;
  };
  assert.deepEqual(row.title, "Keep me");
  assert.deepEqual(
    (db.connection.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
    NEXT,
  );
  // 0002 backfilled the usage rollup from the existing ledger.
  const rollup = db.connection.prepare(
    "SELECT bucket, rows, input_tokens, cost_usd FROM usage_rollup",
  ).all();
  assert.deepEqual(rollup.map((r) => ({ ...r })), [{
    bucket: 1800000,
    rows: 1,
    input_tokens: 100,
    cost_usd: 0.0006,
  }]);
  db.close();
  const backups = listBackups(homeAt(dir.path));
  assert.deepEqual(backups.length, 1);
  assert.match(backups[0]!.name, /^\d{8}T\d{6}Z-v1\.db$/);
  assert.deepEqual(backups[0]!.version, 1);
  assert.deepEqual(dump(backups[0]!.path), before, "the backup holds the v1 database exactly");
  const check = new DatabaseSync(backups[0]!.path, { readOnly: true });
  assert.deepEqual(
    (check.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
    "ok",
  );
  check.close();
});

Deno.test("a failing migration leaves the database byte-identical and the backup in place", async () => {
  await using dir = await tempDir();
  await seedV1(dir.path);
  const dbPath = join(dir.path, "bonsai.db");
  const hashBefore = await fileHash(dbPath);
  const dumpBefore = dump(dbPath);
  const err = await rejectsWith(
    () => openTestDb(dir.path, { migrations: [...MIGRATIONS, FAILING] }),
    "MIGRATION_FAILED",
  );
  assert.match(err.message, /0002_test_broken/);
  const backups = listBackups(homeAt(dir.path));
  assert.deepEqual(backups.length, 1);
  assert.ok(err.message.includes(backups[0]!.path), `message names the backup: ${err.message}`);
  assert.deepEqual(await fileHash(dbPath), hashBefore);
  assert.deepEqual(dump(dbPath), dumpBefore);
  // The v1 binary still opens it.
  const { db } = await openTestDb(dir.path, { migrations: MIGRATIONS });
  db.close();
});

Deno.test("a migration that escapes its transaction is undone by restoring the backup", async () => {
  await using dir = await tempDir();
  await seedV1(dir.path);
  const dbPath = join(dir.path, "bonsai.db");
  const dumpBefore = dump(dbPath);
  const err = await rejectsWith(
    () => openTestDb(dir.path, { migrations: [...MIGRATIONS, ESCAPING] }),
    "MIGRATION_FAILED",
  );
  assert.deepEqual(err.data?.restored, true);
  assert.match(err.message, /restored from the backup/);
  assert.deepEqual(dump(dbPath), dumpBefore, "the restored database equals the pre-migration one");
});

Deno.test("a database newer than the binary is refused and never modified", async () => {
  await using dir = await tempDir();
  await seedV1(dir.path);
  const dbPath = join(dir.path, "bonsai.db");
  const conn = new DatabaseSync(dbPath);
  conn.exec("PRAGMA user_version = 99");
  conn.close();
  const before = await treeHash(dir.path);
  const err = await rejectsWith(() => openTestDb(dir.path), "DB_TOO_NEW");
  assert.match(err.message, /schema version 99/);
  assert.deepEqual(await treeHash(dir.path), before);
});

Deno.test("a file that is not a SQLite database is refused and never overwritten", async () => {
  await using dir = await tempDir();
  const dbPath = join(dir.path, "bonsai.db");
  await Deno.writeTextFile(dbPath, "these are my notes, not a database\n".repeat(200));
  const before = await treeHash(dir.path);
  const err = await rejectsWith(() => openTestDb(dir.path), "DB_NOT_SQLITE");
  assert.match(err.message, /is not a SQLite database/);
  assert.deepEqual(await treeHash(dir.path), before);
});

Deno.test("a damaged database is refused before any migration", async () => {
  await using dir = await tempDir();
  await seedV1(dir.path);
  const dbPath = join(dir.path, "bonsai.db");
  // Keep the header, scribble over the rest of page 1 and beyond.
  const bytes = await Deno.readFile(dbPath);
  for (let i = 100; i < bytes.length; i += 7) bytes[i] = 0xa5;
  await Deno.writeFile(dbPath, bytes);
  const before = await treeHash(dir.path);
  await assert.rejects(
    () => openTestDb(dir.path, { migrations: [...MIGRATIONS, V2] }),
    (err: { code?: string }) => ["DB_CORRUPT", "DB_NOT_SQLITE"].includes(err.code ?? ""),
  );
  assert.deepEqual(await treeHash(dir.path), before);
  assert.ok(!existsSync(join(dir.path, "backups")) || listBackups(homeAt(dir.path)).length === 0);
});

Deno.test("migrations must be numbered without gaps", async () => {
  await using dir = await tempDir();
  await assert.rejects(
    () => openTestDb(dir.path, { migrations: [...MIGRATIONS, { ...V2, version: NEXT + 1 }] }),
    RangeError,
  );
});

Deno.test("migration 0010: a session's turns count completed responses, failed attempts only as unpriced attempts", async () => {
  await using dir = await tempDir();
  const { db } = await openTestDb(dir.path, { migrations: MIGRATIONS.slice(0, 9) });
  const s = oldSession(db, "01kseedsession000000000001", "/work/app");
  const insert = db.connection.prepare(
    `INSERT INTO ledger (session_id, project_id, seq, provider, model, input_tokens, output_tokens, cost_usd, error, created_at)
     VALUES (?, ?, ?, 'openai', 'local-model', 10, 5, NULL, ?, 1800000)`,
  );
  insert.run(s.id, s.projectId, 1, "HTTP 500");
  insert.run(s.id, s.projectId, 2, "HTTP 500");
  insert.run(s.id, s.projectId, 3, null);
  // Before 0003 a trigger kept the counters; at v9 the storage layer does: mimic it.
  db.connection.prepare(
    "UPDATE sessions SET turns = 3, unpriced_turns = 3, total_tokens = 45 WHERE id = ?",
  ).run(s.id);
  db.close();
  const upgraded = await openTestDb(dir.path);
  try {
    const row = () =>
      upgraded.db.connection.prepare(
        "SELECT turns, unpriced_attempts, total_tokens FROM sessions WHERE id = ?",
      ).get(s.id) as Record<string, number>;
    assert.deepEqual({ ...row() }, { turns: 1, unpriced_attempts: 3, total_tokens: 45 });
    // Deleting a failed attempt leaves the turns alone; deleting the completed one does not.
    upgraded.db.connection.prepare("DELETE FROM ledger WHERE seq = 1 AND session_id = ?").run(s.id);
    assert.deepEqual({ ...row() }, { turns: 1, unpriced_attempts: 2, total_tokens: 30 });
    upgraded.db.connection.prepare("DELETE FROM ledger WHERE seq = 3 AND session_id = ?").run(s.id);
    assert.deepEqual({ ...row() }, { turns: 0, unpriced_attempts: 1, total_tokens: 15 });
  } finally {
    upgraded.db.close();
  }
});
