import assert from "node:assert/strict";
import { hashKey, ResponseIndex } from "../../../core/import/response_index.ts";
import { LedgerStore } from "../../../core/storage/ledger.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { ledgerRow } from "../../support/usage_ledger.ts";

async function ledgerDb(dir: string) {
  const { db, ids } = await openTestDb(dir);
  const session = new SessionStore(db, ids).create({ projectPath: "/p", title: "t" });
  const ledger = new LedgerStore(db);
  const add = (externalId: string | null, outputTokens = 1) =>
    ledger.append([
      ledgerRow({ sessionId: session.id, projectId: session.projectId, createdAt: 0 }, {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        externalId,
        outputTokens,
      }),
    ])[0]!;
  return { db, ledger, add, sessionId: session.id };
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
