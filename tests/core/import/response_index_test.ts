import assert from "node:assert/strict";
import { hashKey, ResponseIndex } from "../../../core/import/response_index.ts";
import { hasIndex } from "../../../core/storage/db.ts";
import { EXTERNAL_INDEX, LedgerStore } from "../../../core/storage/ledger.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { ledgerRow } from "../../support/usage_ledger.ts";

async function ledgerDb(dir: string) {
  const { db, ids } = await openTestDb(dir);
  const sessions = new SessionStore(db, ids);
  const session = sessions.create({ projectPath: "/p", title: "t" });
  const ledger = new LedgerStore(db);
  const add = (externalId: string | null, outputTokens = 1, into = session) =>
    ledger.append([
      ledgerRow({ sessionId: into.id, projectId: into.projectId, createdAt: 0 }, {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        externalId,
        outputTokens,
      }),
    ])[0]!;
  const newSession = () => sessions.create({ projectPath: "/p", title: "other" });
  return { db, ledger, sessions, add, newSession, sessionId: session.id };
}

/** Two different keys with the same 32-bit hash (a birthday search: ~80k tries). */
function collidingKeys(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0;; i++) {
    const key = `cc:msg_${i}:req_${i}`;
    const other = seen.get(hashKey(key));
    if (other !== undefined) return [other, key];
    seen.set(hashKey(key), key);
  }
}

Deno.test("ResponseIndex finds every imported row by external id, and nothing else", async () => {
  await using dir = await tempDir();
  const { db, ledger, add, sessionId } = await ledgerDb(dir.path);
  using _ = db;
  const expected = new Map<string, number>();
  db.write(() => {
    for (let i = 0; i < 3000; i++) {
      expected.set(`cc:m${i}:r${i}`, add(`cc:m${i}:r${i}`, i));
      if (i % 7 === 0) add(null); // rows of bonsai's own runs have no external id
    }
  });
  const index = new ResponseIndex(ledger, { pageRows: 100 }); // many pages
  index.catchUp();
  for (const [key, id] of expected) {
    const row = index.find(key);
    assert.ok(row, key);
    assert.deepEqual(row, ledger.findExternal(key));
    assert.equal(row.id, id);
    assert.equal(row.sessionId, sessionId);
  }
  assert.equal(index.find("cc:m3000:r3000"), null);
  assert.equal(index.find(""), null);
});

Deno.test("ResponseIndex tells apart keys whose hashes collide", async () => {
  await using dir = await tempDir();
  const { db, ledger, add } = await ledgerDb(dir.path);
  using _ = db;
  const [a, b] = collidingKeys();
  assert.equal(hashKey(a), hashKey(b));
  const index = new ResponseIndex(ledger);
  const idA = add(a);
  index.catchUp();
  assert.equal(index.find(a)?.id, idA);
  assert.equal(index.find(b), null, "same hash, different key: a miss");
  const idB = add(b);
  index.catchUp();
  assert.equal(index.find(a)?.id, idA);
  assert.equal(index.find(b)?.id, idB);
});

Deno.test("ResponseIndex.catchUp() sees rows written since, and starts over when the newest was deleted", async () => {
  await using dir = await tempDir();
  const { db, ledger, add } = await ledgerDb(dir.path);
  using _ = db;
  const index = new ResponseIndex(ledger);
  const first = add("cc:first");
  const newest = add("cc:newest");
  index.catchUp();
  const later = add("cc:later"); // another process, say
  assert.equal(index.find("cc:later"), null, "not read yet");
  index.catchUp();
  assert.equal(index.find("cc:later")?.id, later);
  // Deleting the newest rows lets SQLite give their ids to the next rows.
  db.connection.prepare("DELETE FROM ledger WHERE id >= ?").run(newest);
  const reused = add("cc:reused");
  assert.equal(reused, newest, "the id was handed out again");
  index.catchUp();
  assert.equal(index.find("cc:reused")?.id, reused);
  assert.equal(index.find("cc:newest"), null);
  assert.equal(index.find("cc:later"), null);
  assert.equal(index.find("cc:first")?.id, first);
});

Deno.test("ResponseIndex.catchUp() notices its newest row replaced by another session's, keys or none", async () => {
  await using dir = await tempDir();
  const { db, ledger, sessions, add, newSession } = await ledgerDb(dir.path);
  using _ = db;
  const index = new ResponseIndex(ledger);
  add("cc:x");
  const run = newSession(); // a bonsai run: rows without external ids
  add(null, 1, run);
  const newest = add(null, 1, run);
  index.catchUp();
  // The run is forgotten; another import then fills the freed ids, the newest again
  // with a row that has no external id.
  sessions.forget(run.id);
  const other = newSession();
  const y = add("cc:y", 1, other);
  assert.equal(add(null, 1, other), newest, "the newest id, taken over");
  index.catchUp();
  assert.equal(index.find("cc:y")?.id, y);
});

Deno.test("LedgerStore.buildExternalIndex() merges copies written while the index was gone", async () => {
  await using dir = await tempDir();
  const { db, ledger, add, sessionId } = await ledgerDb(dir.path);
  using _ = db;
  ledger.dropExternalIndex();
  add("cc:a", 5);
  const larger = add("cc:a", 9);
  add("cc:a", 2);
  const single = add("cc:b", 4);
  ledger.buildExternalIndex();
  assert.ok(hasIndex(db, EXTERNAL_INDEX));
  const rows = db.connection.prepare(
    "SELECT id, external_id, output_tokens FROM ledger ORDER BY id",
  )
    .all().map((r) => ({ ...r }));
  assert.deepEqual(rows, [
    { id: larger, external_id: "cc:a", output_tokens: 9 },
    { id: single, external_id: "cc:b", output_tokens: 4 },
  ]);
  const session = db.connection.prepare("SELECT turns, total_tokens FROM sessions WHERE id = ?")
    .get(sessionId);
  assert.deepEqual({ ...session }, { turns: 2, total_tokens: 13 }, "the session's counters follow");
});
