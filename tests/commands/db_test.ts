import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { homeAt } from "../../core/home.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { takeBackup } from "../../core/storage/backups.ts";
import { MessageStore } from "../../core/storage/messages.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { openTestDb } from "../support/db.ts";
import { cli, ScriptedPrompter, testWorld } from "../support/world.ts";
import { tempDir, treeHash } from "../support/temp.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { assertSnapshot } from "../support/snapshot.ts";

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

/** A value a run stored before bonsai knew it was secret; `zq7leak` is one search token. */
const LEAK = "Zq7leak-K3y-9f2c-0123";

async function leakyHome(home: string) {
  const { db, ids, clock } = await openTestDb(home);
  const sessions = new SessionStore(db, ids);
  const s = sessions.create({ projectPath: "/p", title: `about ${LEAK}` });
  new MessageStore(db).append(s.id, [
    { role: "user", text: `the key is ${LEAK}` },
    {
      role: "assistant",
      kind: "tool_call",
      text: "exec",
      toolName: "exec",
      toolArgs: JSON.stringify({ command: `echo ${LEAK}` }),
    },
    { role: "tool", kind: "tool_result", text: "", toolResult: LEAK },
  ]);
  sessions.end(s.id, "completed", "quit");
  const backup = await takeBackup(db.connection, {
    home: homeAt(home),
    clock,
    version: MIGRATIONS.length,
  });
  db.close();
  return { clock, session: s, backup };
}

/** Output with the temporary home and this binary's schema version made stable. */
function plain(text: string, home: string): string {
  return text.replaceAll(home, "$BONSAI_HOME").replaceAll(`-v${MIGRATIONS.length}.db`, "-vN.db");
}

function rawBytes(...paths: string[]): string {
  return paths.map((p) => {
    try {
      return new TextDecoder("latin1").decode(Deno.readFileSync(p));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    }
  }).join("");
}

Deno.test("bonsai db scrub refuses a missing, short or literal value with exit 2 and one line", async (t) => {
  await using dir = await tempDir();
  const { clock } = await leakyHome(dir.path);
  const before = await treeHash(dir.path);
  const cases: [name: string, args: string[], env: Record<string, string>, error: RegExp][] = [
    ["no option", [], {}, /required option '--value-from-env <name>'/],
    ["an unset variable", ["--value-from-env", "NOT_SET_HERE"], {}, /'NOT_SET_HERE' is not set/],
    ["an empty variable", ["--value-from-env", "EMPTY"], { EMPTY: "" }, /'EMPTY' is not set/],
    [
      "a short value",
      ["--value-from-env", "SHORT"],
      { SHORT: "abc1234" },
      /'SHORT' has 7 characters; only values of 8 or more/,
    ],
    [
      "the secret itself on the command line",
      ["--value-from-env", LEAK],
      {},
      /takes the name of an environment variable/,
    ],
  ];
  for (const [name, args, env, error] of cases) {
    await t.step(name, async () => {
      const w = testWorld({ home: dir.path, clock, env });
      assert.equal(await cli(w.world, "db", "scrub", ...args), 2, w.stderr.text);
      assert.match(w.stderr.text, error);
      assert.equal(w.stderr.text.trim().split("\n").length, 1, w.stderr.text);
      assert.ok(!w.stderr.text.includes(LEAK), "an error never repeats the value");
    });
  }
  assert.deepEqual(await treeHash(dir.path), before, "a refused scrub changes nothing");
});

Deno.test("bonsai db scrub removes a stored value from rows, search and the file; --backups from backups", async () => {
  await using dir = await tempDir();
  const { clock, backup } = await leakyHome(dir.path);
  const env = { LEAKED: LEAK };
  const db = join(dir.path, "bonsai.db");
  const found = testWorld({ home: dir.path, clock });
  assert.equal(await cli(found.world, "search", "zq7leak", "--json"), 0);
  assert.equal(JSON.parse(found.stdout.text).length, 1);

  const first = testWorld({ home: dir.path, clock, env });
  assert.equal(
    await cli(first.world, "db", "scrub", "--value-from-env", "LEAKED", "--json"),
    0,
    first.stderr.text,
  );
  const json = JSON.parse(first.stdout.text);
  assert.deepEqual(json, {
    path: db,
    rows: 4,
    tables: { messages: 3, sessions: 1 },
    wal_truncated: true,
    live_sessions: 0,
    clean: true,
    backups: [{
      name: basename(backup),
      path: backup,
      scrubbed: false,
      rows: null,
      tables: null,
      clean: false,
      error: null,
    }],
  });
  const search = testWorld({ home: dir.path, clock });
  assert.equal(await cli(search.world, "search", "zq7leak", "--json"), 0);
  assert.deepEqual(JSON.parse(search.stdout.text), []);
  const titles = new DatabaseSync(db, { readOnly: true });
  assert.deepEqual(
    titles.prepare("SELECT title FROM sessions").all().map((r) => r.title),
    ["about [REDACTED:secret]"],
  );
  titles.close();
  assert.ok(!rawBytes(db, `${db}-wal`).includes(LEAK));
  assert.ok(rawBytes(backup).includes(LEAK), "backups are left alone without --backups");

  const second = testWorld({ home: dir.path, clock, env });
  assert.equal(
    await cli(second.world, "db", "scrub", "--value-from-env", "LEAKED", "--backups"),
    0,
    second.stderr.text,
  );
  await assertSnapshot(
    "db_scrub_backups",
    plain(second.stdout.text + second.stderr.text, dir.path),
  );
  assert.ok(!rawBytes(backup).includes(LEAK));
  const again = testWorld({ home: dir.path, clock, env });
  assert.equal(await cli(again.world, "db", "scrub", "--value-from-env", "LEAKED", "--json"), 0);
  assert.deepEqual(JSON.parse(again.stdout.text).backups, []);
});

Deno.test("bonsai db scrub prints rows per table and lists the backups that still hold the value", async () => {
  await using dir = await tempDir();
  const { clock } = await leakyHome(dir.path);
  const t = testWorld({ home: dir.path, clock, env: { LEAKED: LEAK } });
  assert.equal(await cli(t.world, "db", "scrub", "--value-from-env", "LEAKED"), 0, t.stderr.text);
  await assertSnapshot(
    "db_scrub",
    plain(t.stdout.text + t.stderr.text, dir.path),
  );
});

Deno.test("bonsai db scrub refuses while another process has a live session, unless --force", async () => {
  await using dir = await tempDir();
  const { clock, session } = await leakyHome(dir.path);
  const { db } = await openTestDb(dir.path, { clock });
  db.connection.prepare(
    "UPDATE sessions SET status = 'active', owner_pid = 999, heartbeat_at = ? WHERE id = ?",
  ).run(clock.now(), session.id);
  db.close();
  const env = { LEAKED: LEAK };
  const live = testWorld({ home: dir.path, clock, env });
  assert.equal(await cli(live.world, "db", "scrub", "--value-from-env", "LEAKED"), 5);
  assert.match(live.stderr.text, /Cannot scrub while 1 session\(s\) are live .* pass --force/);
  const still = testWorld({ home: dir.path, clock });
  assert.equal(await cli(still.world, "search", "zq7leak", "--json"), 0);
  assert.equal(JSON.parse(still.stdout.text).length, 1, "a refused scrub changes nothing");
  const forced = testWorld({ home: dir.path, clock, env });
  assert.equal(
    await cli(forced.world, "db", "scrub", "--value-from-env", "LEAKED", "--force"),
    0,
    forced.stderr.text,
  );
  assert.match(forced.stderr.text, /1 session\(s\) are live in other processes/);
});
