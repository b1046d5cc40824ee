import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { homeAt } from "../../core/home.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { takeBackup } from "../../core/storage/backups.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { openTestDb } from "../support/db.ts";
import { cli, ScriptedPrompter, testWorld } from "../support/world.ts";
import { tempDir, treeHash } from "../support/temp.ts";
import { FakeClock } from "../support/fake_clock.ts";

Deno.test("bonsai db status inspects without creating or changing anything", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const fresh = testWorld({ home });
  assert.equal(await cli(fresh.world, "db", "status", "--json"), 0);
  const empty = JSON.parse(fresh.stdout.text);
  assert.equal(empty.exists, false);
  assert.equal(existsSync(join(home, "bonsai.db")), false, "status does not create the database");

  const { db, ids } = await openTestDb(home);
  new SessionStore(db, ids).create({ projectPath: "/p" });
  db.close();
  const before = await treeHash(home);
  const t = testWorld({ home });
  assert.equal(await cli(t.world, "db", "status", "--json", "--check"), 0);
  const status = JSON.parse(t.stdout.text);
  assert.equal(status.schema_version, MIGRATIONS.length);
  assert.equal(status.supported_version, MIGRATIONS.length);
  assert.equal(status.sessions, 1);
  assert.equal(status.integrity, "ok");
  assert.equal(status.journal_mode, "wal");
  assert.ok(status.size_bytes > 0);
  assert.deepEqual(await treeHash(home), before);
  const human = testWorld({ home });
  assert.equal(await cli(human.world, "db", "status"), 0);
  assert.match(human.stdout.text, new RegExp(`schema version\\s+${MIGRATIONS.length}`));
});

Deno.test("bonsai db status reports a too-new database instead of refusing to look", async () => {
  await using dir = await tempDir();
  const { db } = await openTestDb(dir.path);
  db.close();
  const conn = new DatabaseSync(join(dir.path, "bonsai.db"));
  conn.exec("PRAGMA user_version = 70");
  conn.close();
  const t = testWorld({ home: dir.path });
  assert.equal(await cli(t.world, "db", "status"), 0);
  assert.match(t.stdout.text, new RegExp(`70 \\(newer than this bonsai: ${MIGRATIONS.length}\\)`));
  const other = testWorld({ home: dir.path });
  assert.equal(await cli(other.world, "sessions", "--all"), 4);
  assert.match(other.stderr.text, /schema version 70, newer than this bonsai understands/);
});

Deno.test("bonsai db restore swaps in a backup and keeps one of what it replaced", async () => {
  await using dir = await tempDir();
  const clock = new FakeClock();
  const { db, ids } = await openTestDb(dir.path, { clock });
  const sessions = new SessionStore(db, ids);
  sessions.create({ projectPath: "/p", title: "before" });
  const backup = await takeBackup(db.connection, {
    home: homeAt(dir.path),
    clock,
    version: MIGRATIONS.length,
  });
  clock.advance(2000);
  sessions.create({ projectPath: "/p", title: "after" });
  db.close();
  const name = backup.split("/").pop()!;

  const listed = testWorld({ home: dir.path, clock });
  assert.equal(await cli(listed.world, "db", "backups", "--json"), 0);
  assert.deepEqual(JSON.parse(listed.stdout.text).map((b: { name: string }) => b.name), [name]);

  const noTty = testWorld({ home: dir.path, clock });
  assert.equal(
    await cli(noTty.world, "db", "restore", name),
    2,
    "asks for --yes without a terminal",
  );

  const asked = new ScriptedPrompter(true, [true]);
  const t = testWorld({ home: dir.path, clock, prompter: asked });
  assert.equal(await cli(t.world, "db", "restore", name.replace(/\.db$/, "")), 0, t.stderr.text);
  assert.equal(asked.asked.length, 1);
  assert.match(t.stderr.text, /Backed up the replaced database/);

  const after = testWorld({ home: dir.path, clock });
  await cli(after.world, "sessions", "--all", "--json");
  assert.deepEqual(JSON.parse(after.stdout.text).map((s: { title: string }) => s.title), [
    "before",
  ]);

  const again = testWorld({ home: dir.path, clock });
  await cli(again.world, "db", "backups", "--json");
  const all = JSON.parse(again.stdout.text) as { name: string; reason: string; path: string }[];
  const safety = all.find((b) => b.reason === "pre-restore");
  assert.ok(safety, JSON.stringify(all));
  const check = new DatabaseSync(safety.path, { readOnly: true });
  const titles = check.prepare("SELECT title FROM sessions ORDER BY id").all().map((r) => r.title);
  check.close();
  assert.deepEqual(titles, ["before", "after"], "the replaced database is kept whole");
});

Deno.test("bonsai db restore refuses unknown names and live sessions", async () => {
  await using dir = await tempDir();
  const clock = new FakeClock();
  const { db, ids } = await openTestDb(dir.path, { clock });
  const backup = await takeBackup(db.connection, {
    home: homeAt(dir.path),
    clock,
    version: MIGRATIONS.length,
  });
  const s = new SessionStore(db, ids).create({ projectPath: "/p", ownerPid: 999 });
  db.connection.prepare("UPDATE sessions SET heartbeat_at = ? WHERE id = ?").run(clock.now(), s.id);
  db.close();
  const name = backup.split("/").pop()!;
  for (const bad of ["nope", "../bonsai.db", "/etc/passwd"]) {
    const t = testWorld({ home: dir.path, clock });
    assert.equal(await cli(t.world, "db", "restore", bad, "--yes"), 3, bad);
  }
  const before = await treeHash(dir.path);
  const live = testWorld({ home: dir.path, clock });
  assert.equal(await cli(live.world, "db", "restore", name, "--yes"), 5);
  assert.match(live.stderr.text, /live/);
  assert.deepEqual(await treeHash(dir.path), before, "a refused restore changes nothing");
  const forced = testWorld({ home: dir.path, clock });
  assert.equal(
    await cli(forced.world, "db", "restore", name, "--yes", "--force"),
    0,
    forced.stderr.text,
  );
});
