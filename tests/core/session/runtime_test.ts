import assert from "node:assert/strict";
import { startSession } from "../../../core/session/lifecycle.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

Deno.test("SessionRuntime.flush() inside a transaction that rolls back saved nothing: it stays dirty and is written next time", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const runtime = startSession(db, ids, { projectPath: "/work/app", owner: { pid: 1, host: "h" } });
  const seq = runtime.addMessage({ role: "assistant", text: "partial", status: "streaming" });
  runtime.addMessage({ role: "user", text: "a prompt" });
  runtime.setTitle("Kept", "user");
  assert.throws(() =>
    db.write(() => {
      runtime.flush();
      throw new Error("the outer transaction fails");
    })
  );
  assert.equal(runtime.dirty, true, "nothing was saved");
  const count = () =>
    (db.connection.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n;
  assert.equal(count(), 0);
  runtime.flush();
  assert.equal(count(), 2);
  assert.equal(runtime.dirty, false);
  assert.equal(
    (db.connection.prepare("SELECT title FROM sessions").get() as { title: string }).title,
    "Kept",
  );

  // A change made after a nested flush, before the commit, is not taken for saved.
  db.write(() => {
    runtime.updateMessage(seq, { text: "partial reply" });
    runtime.flush();
    runtime.updateMessage(seq, { text: "partial reply, longer" });
  });
  assert.equal(runtime.dirty, true);
  runtime.flush();
  const text = db.connection.prepare("SELECT text FROM messages WHERE seq = ?").get(seq) as {
    text: string;
  };
  assert.equal(text.text, "partial reply, longer");
});
