import assert from "node:assert/strict";
import { MessageStore } from "../../../core/storage/messages.ts";
import { DEFAULT_TITLE, SessionStore } from "../../../core/storage/sessions.ts";
import { EpisodeStore } from "../../../core/storage/episodes.ts";
import { searchMessages } from "../../../core/storage/search.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { throwsWith } from "../../support/assert.ts";

Deno.test("SessionStore.create() starts a titled, active row with a fresh cache key", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const store = new SessionStore(db, ids);
  const a = store.create({ projectPath: "/p/one" });
  const b = store.create({ projectPath: "/p/one" });
  assert.equal(a.title, DEFAULT_TITLE);
  assert.equal(a.status, "active");
  assert.equal(a.pinned, false);
  assert.match(a.id, /^[0-9a-z]{26}$/);
  assert.notEqual(a.cacheKey, b.cacheKey);
  assert.ok(a.id < b.id, "ids sort by creation");
  assert.equal(a.projectId, b.projectId, "one project row per root");
});

Deno.test("SessionStore.list() puts pinned first, then content recency, per project", async () => {
  await using dir = await tempDir();
  const { db, ids, clock } = await openTestDb(dir.path);
  using _ = db;
  const store = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  const old = store.create({ projectPath: "/p", title: "old" });
  clock.advance(1000);
  const mid = store.create({ projectPath: "/p", title: "mid" });
  clock.advance(1000);
  const other = store.create({ projectPath: "/q", title: "other" });
  clock.advance(1000);
  messages.append(old.id, [{ role: "user", text: "bump" }]); // old becomes most recent
  store.setPinned(mid.id, true);
  assert.deepEqual(store.list({ projectPath: "/p" }).map((s) => s.title), ["mid", "old"]);
  assert.deepEqual(store.list().map((s) => s.title), ["mid", "old", "other"]);
  assert.equal(store.list({ projectPath: "/p" })[1]!.messageCount, 1);
  assert.equal(store.latest("/p")!.id, old.id);
  assert.equal(store.latest("/nowhere"), null);
  assert.equal(other.projectPath, "/q");
});

Deno.test("SessionStore.resolve() accepts unique prefixes and lists candidates when ambiguous", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const store = new SessionStore(db, ids);
  const a = store.create({ projectPath: "/p", title: "alpha" });
  const b = store.create({ projectPath: "/p", title: "beta" }); // same millisecond: shares the time part
  assert.equal(store.resolve(a.id).id, a.id);
  assert.equal(store.resolve(a.id.toUpperCase()).id, a.id, "prefixes are case-insensitive");
  const err = throwsWith(() => store.resolve(a.id.slice(0, 10)), "AMBIGUOUS_ID");
  assert.match(err.message, /alpha/);
  assert.match(err.message, /beta/);
  assert.deepEqual(err.data?.candidates, [a.id, b.id]);
  throwsWith(() => store.resolve("zzzz"), "NOT_FOUND");
  throwsWith(() => store.resolve("  "), "USAGE");
  throwsWith(() => store.resolve("'; DROP TABLE sessions; --"), "NOT_FOUND");
  const short = store.shortIds([a.id, b.id]);
  assert.notEqual(short.get(a.id), short.get(b.id));
  assert.equal(store.resolve(short.get(a.id)!).id, a.id);
  assert.equal(store.resolve(short.get(b.id)!).id, b.id);
});

Deno.test("SessionStore.rename() and setPinned() update the row; unknown ids fail", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const store = new SessionStore(db, ids);
  const s = store.create({ projectPath: "/p" });
  store.rename(s.id, "  Fix   the login\nbug ");
  assert.equal(store.get(s.id).title, "Fix the login bug");
  assert.equal(store.get(s.id).titleSource, "user");
  throwsWith(() => store.rename(s.id, "   "), "USAGE");
  throwsWith(() => store.rename("nope", "x"), "NOT_FOUND");
  store.setPinned(s.id, true);
  assert.equal(store.get(s.id).pinned, true);
  store.end(s.id, "completed", "quit");
  assert.equal(store.get(s.id).status, "completed");
  assert.equal(store.get(s.id).endReason, "quit");
});

Deno.test("SessionStore.forget() cascades to every table and leaves the FTS indexes clean", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const store = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  const keep = store.create({ projectPath: "/p", title: "keep" });
  const gone = store.create({ projectPath: "/p", title: "gone" });
  messages.append(keep.id, [{ role: "user", text: "shared words 共享文本" }]);
  messages.append(gone.id, [
    { role: "user", text: "shared words 共享文本 unique-to-gone zebra" },
    { role: "assistant", text: "answer", toolName: "exec", toolArgs: '{"cmd":"ls"}' },
  ]);
  new EpisodeStore(db).begin(gone.id, { boundary: "start", startSeq: 1, title: "first" });
  const conn = db.connection;
  conn.prepare(
    `INSERT INTO ledger (session_id, project_id, seq, provider, model, input_tokens, created_at)
     VALUES (?, ?, 1, 'anthropic', 'claude-sonnet-4-5', 10, 0)`,
  ).run(gone.id, gone.projectId);
  conn.prepare(
    "INSERT INTO tool_calls (session_id, call_id, tool_name, args) VALUES (?, 'c1', 'exec', '{}')",
  ).run(gone.id);
  conn.prepare(
    "INSERT INTO snapshot_groups (session_id, grp, signature, body, updated_at) VALUES (?, 'plan', 's', '{}', 0)",
  ).run(gone.id);
  store.forget(gone.id);

  const count = (sql: string, ...args: string[]) =>
    (conn.prepare(sql).get(...args) as { n: number }).n;
  for (
    const table of [
      "messages",
      "ledger",
      "tool_calls",
      "snapshot_groups",
      "episodes",
      "context_items",
      "read_evidence",
      "changed_files",
      "verification_runs",
      "compactions",
      "background_tasks",
    ]
  ) {
    assert.equal(
      count(`SELECT count(*) AS n FROM ${table} WHERE session_id = ?`, gone.id),
      0,
      table,
    );
  }
  assert.equal(count("SELECT count(*) AS n FROM messages"), 1);
  // The word index holds exactly the surviving message, and integrity-checks clean.
  conn.exec("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')");
  conn.exec("INSERT INTO messages_cjk(messages_cjk) VALUES ('integrity-check')");
  assert.equal(searchMessages(db, "zebra").length, 0);
  assert.equal(searchMessages(db, "unique").length, 0);
  assert.deepEqual(searchMessages(db, "shared").map((h) => h.sessionId), [keep.id]);
  assert.deepEqual(searchMessages(db, "共享").map((h) => h.sessionId), [keep.id]);
  assert.equal(
    count("SELECT count(*) AS n FROM messages_cjk WHERE messages_cjk MATCH '\"共享\"'"),
    1,
  );
  assert.equal(count("SELECT count(*) AS n FROM pragma_foreign_key_check"), 0);
  throwsWith(() => store.forget(gone.id), "NOT_FOUND");
  assert.equal(store.get(keep.id).messageCount, 1);
});
