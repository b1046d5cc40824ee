import assert from "node:assert/strict";
import { insertChunks } from "../../../core/storage/bulk_insert.ts";
import { MessageStore } from "../../../core/storage/messages.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { searchMessages } from "../../../core/storage/search.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

Deno.test("insertChunks() covers every row with at most nine statement sizes", () => {
  const sizes = new Set<number>();
  for (let count = 0; count <= 2000; count++) {
    const chunks = insertChunks(count);
    assert.equal(chunks.reduce((a, b) => a + b, 0), count, `count ${count}`);
    for (const size of chunks) sizes.add(size);
  }
  assert.ok(sizes.size <= 9, `sizes: ${[...sizes].join(", ")}`);
});

Deno.test("MessageStore.appendMany() keeps order, seqs and search across chunk boundaries", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const sessions = new SessionStore(db, ids);
  const store = new MessageStore(db);
  const a = sessions.create({ projectPath: "/p", title: "a" });
  const b = sessions.create({ projectPath: "/p", title: "b" });
  const texts = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ role: "user" as const, text: `${tag} row${i}` }));
  // 300 + 77 rows: a full chunk, then a tail of 64 + 8 + 4 + 1 and 32 + 4 + ...
  const last = { role: "user" as const, text: "alpha row299 数据库迁移" };
  const [seqsA, seqsB] = store.appendMany([
    { sessionId: a.id, messages: [...texts("alpha", 299), last] },
    { sessionId: b.id, messages: texts("beta", 77) },
  ]);
  assert.deepEqual(seqsA, Array.from({ length: 300 }, (_, i) => i + 1));
  assert.deepEqual(seqsB, Array.from({ length: 77 }, (_, i) => i + 1));
  const rows = db.connection
    .prepare("SELECT session_id, seq, text FROM messages ORDER BY id")
    .all()
    .map((row) => ({ ...row }));
  const expected = [
    ...texts("alpha", 299).map((m, i) => ({ session_id: a.id, seq: i + 1, text: m.text })),
    { session_id: a.id, seq: 300, text: last.text },
    ...texts("beta", 77).map((m, i) => ({ session_id: b.id, seq: i + 1, text: m.text })),
  ];
  assert.deepEqual(rows, expected);
  const hit = searchMessages(db, "beta row76", { limit: 5 });
  assert.deepEqual(hit.map((h) => [h.sessionId, h.seq]), [[b.id, 77]]);
  const cjk = searchMessages(db, "迁移", { limit: 5 });
  assert.deepEqual(cjk.map((h) => [h.sessionId, h.seq]), [[a.id, 300]]);
});
