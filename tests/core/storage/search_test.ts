import assert from "node:assert/strict";
import { MessageStore } from "../../../core/storage/messages.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { searchMessages } from "../../../core/storage/search.ts";
import { compileQuery } from "../../../core/storage/search_query.ts";
import { cjkGrams } from "../../../core/storage/cjk.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

async function fixture(dir: string) {
  const { db, ids, clock } = await openTestDb(dir);
  const sessions = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  const a = sessions.create({ projectPath: "/proj/a", title: "Login bug" });
  messages.append(a.id, [
    { role: "user", text: "The login test fails with a timeout in auth.ts" },
    { role: "assistant", text: "I raised the timeout; the login test passes now." },
  ]);
  clock.advance(86_400_000);
  const b = sessions.create({ projectPath: "/proj/b", title: "会话持久化" });
  messages.append(b.id, [
    { role: "user", text: "请把会话保存到数据库里，并支持全文搜索" },
    { role: "assistant", text: "已完成：会话现在存储在 SQLite 中。Search works too." },
    { role: "user", text: "データベースの移行を確認してください" },
  ]);
  return { db, a, b, clock };
}

Deno.test("searchMessages() matches all words, phrases and prefixes, best first with snippets", async () => {
  await using dir = await tempDir();
  const { db, a } = await fixture(dir.path);
  using _ = db;
  const both = searchMessages(db, "login timeout");
  assert.equal(both.length, 2);
  assert.ok(both.every((h) => h.sessionId === a.id));
  assert.ok(both[0]!.score >= both[1]!.score);
  const hit = both[0]!;
  assert.equal(hit.sessionTitle, "Login bug");
  assert.equal(hit.projectPath, "/proj/a");
  const marked = hit.highlights.map(([s, e]) => hit.snippet.slice(s, e).toLowerCase());
  assert.ok(marked.includes("login") && marked.includes("timeout"), JSON.stringify(hit));
  assert.equal(searchMessages(db, '"test passes"').length, 1);
  assert.equal(searchMessages(db, '"passes test"').length, 0);
  assert.equal(searchMessages(db, "tim*").length, 2);
  assert.equal(searchMessages(db, "login nonexistentword").length, 0);
});

Deno.test("searchMessages() finds CJK words inside unspaced runs", async () => {
  await using dir = await tempDir();
  const { db, b } = await fixture(dir.path);
  using _ = db;
  for (const q of ["会话", "数据库", "全文搜索", "搜", "データベース", "移行", "会话 sqlite"]) {
    const hits = searchMessages(db, q);
    assert.ok(hits.length > 0, `no hit for ${q}`);
    assert.ok(hits.every((h) => h.sessionId === b.id));
    const h = hits[0]!;
    assert.ok(h.highlights.length > 0, `no highlight for ${q}: ${JSON.stringify(h)}`);
  }
  assert.equal(searchMessages(db, "会话").length, 2);
  assert.equal(searchMessages(db, "话会").length, 0, "order matters inside a run");
  assert.equal(searchMessages(db, "数据库 不存在").length, 0);
});

Deno.test("searchMessages() filters by project, time and session", async () => {
  await using dir = await tempDir();
  const { db, a, b, clock } = await fixture(dir.path);
  using _ = db;
  assert.equal(searchMessages(db, "search", { projectPath: "/proj/a" }).length, 0);
  assert.equal(searchMessages(db, "search", { projectPath: "/proj/b" }).length, 1);
  assert.equal(searchMessages(db, "search", { projectPath: "/nowhere" }).length, 0);
  assert.equal(searchMessages(db, "login", { since: clock.now() - 1000 }).length, 0);
  assert.equal(searchMessages(db, "会话", { until: clock.now() - 1000 }).length, 0);
  assert.equal(searchMessages(db, "login", { sessionId: a.id }).length, 2);
  assert.equal(searchMessages(db, "login", { excludeSessionId: a.id }).length, 0);
  assert.equal(searchMessages(db, "会话", { sessionId: b.id, limit: 1 }).length, 1);
});

Deno.test("searchMessages() never fails on hostile input", async (t) => {
  await using dir = await tempDir();
  const { db } = await fixture(dir.path);
  using _ = db;
  const hostile = [
    '"',
    '""',
    '"login',
    'login"',
    "*",
    "**",
    "login*  *",
    "-",
    "-login",
    "NEAR(",
    "NEAR(login test)",
    "login AND",
    "AND OR NOT",
    "login OR timeout",
    "(login",
    "login)",
    "text:login",
    "^login",
    "{text}: login",
    "'; DROP TABLE messages; --",
    "😀",
    "😀 login",
    "\u0000\u0001\u0002",
    "\\",
    "％＄＃",
    '会话"搜索',
    "a".repeat(10_000),
    Array.from({ length: 3000 }, (_, i) => `w${i}`).join(" "),
    "登录 ".repeat(2000),
  ];
  for (const q of hostile) {
    await t.step(JSON.stringify(q.slice(0, 24)), () => {
      const hits = searchMessages(db, q);
      assert.ok(Array.isArray(hits));
    });
  }
  assert.equal(searchMessages(db, "NEAR(login test)").length, 0, "NEAR is a literal word");
  assert.equal(searchMessages(db, "-login").length, 2, "a leading dash is not an operator");
  assert.equal(searchMessages(db, "login OR timeout").length, 0, "OR is a literal word");
  assert.equal(searchMessages(db, "😀 login").length, 2, "unsearchable terms are dropped");
});

Deno.test("compileQuery() quotes every term", () => {
  assert.deepEqual(compileQuery('fix "the bug" log*'), {
    words: '"fix" AND "the bug" AND "log"*',
    cjk: null,
    cjkTerms: [],
  });
  assert.equal(compileQuery('say "hi"" there').words, '"say" AND "hi" AND "there"');
  assert.equal(compileQuery("API接口").words, '"API"');
  assert.equal(compileQuery("API接口").cjk, '"接口"');
  assert.equal(compileQuery("界").cjk, '"界"*');
  assert.equal(compileQuery("全文搜索").cjk, '"全文 文搜 搜索"');
  assert.equal(compileQuery("- * 😀").words, null);
});

Deno.test("cjkGrams() indexes bigrams plus each run's last character", () => {
  assert.equal(cjkGrams("abc 你好世界 def 好"), "你好 好世 世界 界 好");
  assert.equal(cjkGrams("no cjk here"), "");
  assert.equal(cjkGrams("コーヒー"), "コー ーヒ ヒー ー");
});

Deno.test("bulk appends across sessions and chunks keep both search indexes whole and in order", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const sessions = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  const s = [0, 1, 2].map((i) => sessions.create({ projectPath: `/proj/${i}`, title: `s${i}` }));
  const word = (n: number) => `w${n.toString(36)}q`;
  // 700 messages: more than two multi-row statements' worth, spread over three sessions.
  const seqs = messages.appendMany(s.map((x, k) => ({
    sessionId: x.id,
    messages: Array.from({ length: k === 1 ? 300 : 200 }, (_, i) => ({
      role: "user" as const,
      text: `${word(k * 1000 + i)} common ${i % 7 === 0 ? "数据库迁移" : ""}`,
    })),
  })));
  assert.deepEqual(seqs.map((x) => [x[0], x.at(-1)]), [[1, 200], [1, 300], [1, 200]]);
  db.connection.exec("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')");
  db.connection.exec("INSERT INTO messages_cjk(messages_cjk) VALUES ('integrity-check')");
  for (const [k, i] of [[0, 0], [1, 299], [2, 199], [1, 150]] as const) {
    const hits = searchMessages(db, word(k * 1000 + i), { limit: 5 });
    assert.equal(hits.length, 1, word(k * 1000 + i));
    assert.equal(hits[0]!.sessionId, s[k]!.id);
    assert.equal(hits[0]!.seq, i + 1);
  }
  assert.equal(searchMessages(db, "迁移", { limit: 1000 }).length, 29 + 43 + 29);
  const counts = db.connection.prepare("SELECT message_count FROM sessions ORDER BY created_at, id")
    .all().map((r) => r.message_count);
  assert.deepEqual(counts, [200, 300, 200]);
  // A single put (the REPL's path) is indexed by the same trigger.
  messages.put(s[0]!.id, 201, { role: "assistant", text: "singular zebra" });
  assert.equal(searchMessages(db, "zebra", { limit: 5 }).length, 1);
});

Deno.test("a word in more messages than the rank window is ranked among its newest matches only", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const sessions = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  const s = sessions.create({ projectPath: "/proj/w", title: "window" });
  // The best bm25 match (short, the word three times) is the oldest message; ten newer ones
  // mention the word once in longer text.
  const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod";
  messages.append(s.id, [
    { role: "user", text: "kestrel kestrel kestrel" },
    ...Array.from({ length: 10 }, (_, i) => ({
      role: "user" as const,
      text: `${filler} kestrel ${i} ${filler}`,
    })),
  ]);
  const all = searchMessages(db, "kestrel", { limit: 3 });
  assert.equal(all[0]!.seq, 1, "within the window, the best match wins wherever it is");
  const windowed = searchMessages(db, "kestrel", { limit: 3, rankWindow: 4 });
  assert.equal(windowed.length, 3);
  assert.ok(windowed.every((h) => h.seq >= 8), JSON.stringify(windowed.map((h) => h.seq)));
  // Exactly the window: every match is ranked.
  assert.equal(searchMessages(db, "kestrel", { limit: 3, rankWindow: 11 })[0]!.seq, 1);
  // A window below the limit still returns the limit.
  assert.equal(searchMessages(db, "kestrel", { limit: 5, rankWindow: 2 }).length, 5);
  // Filters apply before the window: the newest matches of this session only.
  const other = sessions.create({ projectPath: "/proj/w", title: "other" });
  messages.append(
    other.id,
    Array.from({ length: 5 }, () => ({ role: "user" as const, text: "kestrel" })),
  );
  const mine = searchMessages(db, "kestrel", { limit: 3, rankWindow: 4, sessionId: s.id });
  assert.ok(mine.every((h) => h.sessionId === s.id && h.seq >= 8), JSON.stringify(mine));
});
