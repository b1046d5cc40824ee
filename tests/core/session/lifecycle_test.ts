import assert from "node:assert/strict";
import { BonsaiError } from "../../../core/errors.ts";
import { findResumable } from "../../../core/session/lifecycle.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

Deno.test("findResumable(): -c skips imported sessions; naming one is refused with a clear reason", async () => {
  await using dir = await tempDir();
  const { db, clock, ids } = await openTestDb(dir.path);
  using _ = db;
  const sessions = new SessionStore(db, ids);
  const own = sessions.create({ projectPath: "/work/shop", title: "Ours" });
  clock.advance(60_000);
  const imported = sessions.create({
    projectPath: "/work/shop",
    title: "From Claude Code",
    source: "claude-code",
    externalId: "abc",
  });
  const latest = findResumable(db, { projectPath: "/work/shop", prefix: null, ownPid: 1 });
  assert.equal(latest.id, own.id, "the newer imported session is not what -c continues");
  assert.deepEqual(
    sessions.list({ projectPath: "/work/shop", source: "bonsai" }).map((s) => s.id),
    [own.id],
  );
  assert.throws(
    () => findResumable(db, { projectPath: "/work/shop", prefix: imported.id, ownPid: 1 }),
    (err: unknown) =>
      err instanceof BonsaiError && err.code === "USAGE" &&
      /imported from Claude Code and can be shown and searched, not continued/.test(err.message),
  );
});
