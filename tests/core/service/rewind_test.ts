import assert from "node:assert/strict";
import { join } from "node:path";
import { isBonsaiError } from "../../../core/errors.ts";
import { SessionAdmin } from "../../../core/service/session_admin.ts";
import { rewindJson } from "../../../core/service/rewind_json.ts";
import { SessionRuntime } from "../../../core/session/runtime.ts";
import { searchMessages } from "../../../core/storage/search.ts";
import { type Harness, harness } from "../../support/agent_harness.ts";
import { testIds } from "../../support/db.ts";
import { anthropic } from "../../support/sse_scripts.ts";

const signal = () => new AbortController().signal;

function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, name, json: JSON.stringify(args) };
}

/**
 * Three prompts: the first reads a.txt and creates new.txt; the second (the one rewound to)
 * edits a.txt, creates made.txt and runs a command; the third only talks. Returns the seq of
 * the second prompt.
 */
async function threeTurns(h: Harness): Promise<number> {
  await Deno.writeTextFile(join(h.root, "a.txt"), "alpha\n");
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [
          call("r1", "read", { path: "a.txt" }),
          call("w1", "write", { path: "new.txt", content: "v1\n" }),
        ],
      }),
    },
    { events: anthropic.reply({ text: "Read a.txt and created new.txt." }) },
    {
      events: anthropic.reply({
        calls: [
          call("e1", "edit", { path: "a.txt", old_string: "alpha", new_string: "beta" }),
          call("w2", "write", { path: "made.txt", content: "made\n" }),
          call("x1", "exec", { command: "echo ran > ran.txt" }),
        ],
      }),
    },
    { events: anthropic.reply({ text: "Edited zebraword a.txt." }) },
    { events: anthropic.reply({ text: "Nothing else to do." }) },
  );
  h.clock.advance(1000);
  assert.equal((await h.agent.run("set things up", { signal: signal() })).status, "completed");
  h.clock.advance(60_000);
  const second = h.runtime.lastSeq + 1;
  assert.equal((await h.agent.run("now change a.txt", { signal: signal() })).status, "completed");
  h.clock.advance(60_000);
  assert.equal((await h.agent.run("anything else?", { signal: signal() })).status, "completed");
  h.runtime.flush();
  return second;
}

function admin(h: Harness, pid = 4242): SessionAdmin {
  return new SessionAdmin({
    db: h.db,
    clock: h.clock,
    ids: testIds(h.clock, 9),
    env: {},
    me: { pid, host: "test-host" },
    probe: () => null,
  });
}

function texts(h: Harness, sessionId: string): string[] {
  return h.rows<{ text: string }>(
    "SELECT text FROM messages WHERE session_id = ? ORDER BY seq",
    sessionId,
  ).map((r) => r.text);
}

function usageTotals(h: Harness) {
  const sessions = h.rows<{ t: number; c: number; n: number }>(
    "SELECT sum(total_tokens) AS t, sum(turns) AS n, sum(message_count) AS c FROM sessions",
  )[0]!;
  const rollup = h.rows<{ t: number; r: number }>(
    "SELECT sum(input_tokens + output_tokens) AS t, sum(rows) AS r FROM usage_rollup",
  )[0]!;
  return { tokens: sessions.t, turns: sessions.n, rollupTokens: rollup.t, rollupRows: rollup.r };
}

Deno.test("SessionAdmin.rewind(): transcript and context end before the prompt; the rest moves to a linked session", async () => {
  await using h = await harness();
  const second = await threeTurns(h);
  const id = h.runtime.id;
  const before = texts(h, id);
  const contextBefore = SessionRuntime.load(h.db, id).context.map((c) => c.message);
  const usageBefore = usageTotals(h);
  const ledgerRows = h.rows("SELECT id FROM ledger").length;

  h.clock.advance(1000);
  const result = await admin(h).rewind(id.slice(0, 12), { to: second });

  // The session ends just before the second prompt.
  assert.deepEqual(texts(h, id), before.slice(0, second - 1));
  assert.equal(result.keptMessages, second - 1);
  assert.equal(result.movedMessages, before.length - second + 1);
  assert.equal(result.point.text, "now change a.txt");
  const rewound = SessionRuntime.load(h.db, id);
  const last = rewound.context.at(-1)!.message;
  assert.equal(last.role, "assistant");
  assert.deepEqual(last.content, [{ type: "text", text: "Read a.txt and created new.txt." }]);
  assert.equal(rewound.context.length, 4, "prompt, tool calls, results, reply");

  // The linked session holds the whole conversation, so continuing it undoes the rewind.
  const linked = result.linked;
  assert.equal(linked.parentId, id);
  assert.match(linked.title, /^rewound from '.*' at #\d+$/);
  assert.deepEqual(texts(h, linked.id), before);
  const undone = SessionRuntime.load(h.db, linked.id);
  assert.deepEqual(undone.context.map((c) => c.message), contextBefore);
  assert.equal(undone.plan.todos.length, 0);

  // Nothing counted twice: usage and session totals add up as before.
  assert.deepEqual(usageTotals(h), usageBefore);
  assert.equal(h.rows("SELECT id FROM ledger").length, ledgerRows);
  assert.equal(result.session.turns + result.linked.turns, usageBefore.turns);
  assert.equal(result.session.turns, 2, "the first prompt's two responses stay");
  assert.deepEqual(
    h.rows<{ call_id: string }>(
      "SELECT call_id FROM tool_calls WHERE session_id = ? ORDER BY id",
      linked.id,
    ).map((r) => r.call_id),
    ["e1", "w2", "x1"],
  );

  // The search index follows the moved rows: the tail's words are found in the linked session only.
  const hits = searchMessages(h.db, "zebraword");
  assert.deepEqual(hits.map((x) => x.sessionId), [linked.id]);
  assert.deepEqual(
    searchMessages(h.db, '"and created new"').map((x) => x.sessionId).sort(),
    [id, linked.id].sort(),
    "the copy is searchable too",
  );
  assert.equal(
    h.rows<{ n: number }>("SELECT count(*) AS n FROM messages_fts")[0]!.n,
    h.rows<{ n: number }>("SELECT count(*) AS n FROM messages")[0]!.n,
  );
  const check = h.rows<{ integrity_check: string }>("PRAGMA integrity_check");
  assert.equal(check[0]!.integrity_check, "ok");

  // Files are left as they are without --files; the exec call is reported.
  assert.equal(await Deno.readTextFile(join(h.root, "a.txt")), "beta\n");
  assert.equal(result.files, null);
  assert.deepEqual(result.execCalls.map((c) => c.command), ["echo ran > ran.txt"]);
  assert.deepEqual([...result.changedFiles].sort(), ["a.txt", "made.txt"]);
  const json = rewindJson(result);
  assert.equal(json.to_seq, second);
  assert.equal(json.linked_session.id, linked.id);
  assert.equal(json.exec_calls.length, 1);

  // The rewound session knows a.txt as it was at the prompt (it must read it again to edit it).
  const hashes = rewound.knownHash("a.txt");
  assert.notEqual(hashes, undone.knownHash("a.txt"));
});

Deno.test("SessionAdmin.rewind(): --files reverts write and edit changes after the step", async () => {
  await using h = await harness();
  const second = await threeTurns(h);
  const result = await admin(h).rewind(h.runtime.id, { to: second, files: true });
  assert.equal(await Deno.readTextFile(join(h.root, "a.txt")), "alpha\n");
  await assert.rejects(Deno.stat(join(h.root, "made.txt")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(join(h.root, "new.txt")), "v1\n", "before the step: kept");
  assert.equal(await Deno.readTextFile(join(h.root, "ran.txt")), "ran\n", "exec cannot be undone");
  assert.deepEqual(
    [...result.files!.reverted].sort((a, b) => a.path.localeCompare(b.path)),
    [{ path: "a.txt", action: "restored" }, { path: "made.txt", action: "deleted" }],
  );
  assert.equal(result.execCalls.length, 1);
  // The rewound session's file knowledge matches the disk again: it could edit a.txt now.
  const rewound = SessionRuntime.load(h.db, h.runtime.id);
  const linkedFiles = SessionRuntime.load(h.db, result.linked.id);
  assert.ok(rewound.knownHash("a.txt"));
  assert.notEqual(rewound.knownHash("a.txt"), linkedFiles.knownHash("a.txt"));
});

Deno.test("SessionAdmin.rewind(): a file changed since bonsai wrote it refuses everything unless force", async () => {
  await using h = await harness();
  const second = await threeTurns(h);
  await Deno.writeTextFile(join(h.root, "a.txt"), "edited by hand\n");
  const a = admin(h);
  const before = texts(h, h.runtime.id);
  await assert.rejects(a.rewind(h.runtime.id, { to: second, files: true }), (err) => {
    assert.ok(isBonsaiError(err, "FILES_CHANGED"));
    assert.match(err.message, /a\.txt/);
    assert.deepEqual(err.data?.changed_since, ["a.txt"]);
    return true;
  });
  assert.deepEqual(texts(h, h.runtime.id), before, "nothing moved");
  assert.equal(await Deno.readTextFile(join(h.root, "made.txt")), "made\n", "nothing reverted");
  assert.equal(h.rows("SELECT id FROM sessions").length, 1);

  const forced = await a.rewind(h.runtime.id, { to: second, files: true, force: true });
  assert.deepEqual(forced.files!.changedSince, ["a.txt"]);
  assert.equal(await Deno.readTextFile(join(h.root, "a.txt")), "alpha\n");
  await assert.rejects(Deno.stat(join(h.root, "made.txt")), Deno.errors.NotFound);
});

Deno.test("SessionAdmin.rewind(): calls recorded without file contents cannot be reverted", async () => {
  await using h = await harness();
  const second = await threeTurns(h);
  // As a row written before migration 0013 looks.
  h.db.connection.prepare(
    "UPDATE tool_calls SET file_path = NULL, file_before = NULL, file_before_hash = NULL, file_after_hash = NULL WHERE call_id = 'e1'",
  ).run();
  const a = admin(h);
  await assert.rejects(
    a.rewind(h.runtime.id, { to: second, files: true }),
    (err) => isBonsaiError(err, "FILES_CHANGED") && /recorded before bonsai kept/.test(err.message),
  );
  const forced = await a.rewind(h.runtime.id, { to: second, files: true, force: true });
  assert.deepEqual(forced.files!.unrevertable.map((u) => u.path), ["a.txt"]);
  assert.deepEqual(forced.files!.reverted, [{ path: "made.txt", action: "deleted" }]);
  assert.equal(await Deno.readTextFile(join(h.root, "a.txt")), "beta\n");
});

Deno.test("SessionAdmin.rewind(): refuses a seq that is not a prompt, and a session live elsewhere", async () => {
  await using h = await harness();
  const second = await threeTurns(h);
  await assert.rejects(
    admin(h).rewind(h.runtime.id, { to: second + 1 }),
    (err) =>
      isBonsaiError(err, "USAGE") &&
      new RegExp(`prompts are at 1, ${second}, \\d+$`).test(err.message),
  );
  // The harness's process (4242) heartbeats it; another process may not rewind it.
  h.runtime.heartbeat(h.clock.now());
  await assert.rejects(
    admin(h, 999).rewind(h.runtime.id, { to: second }),
    (err) => isBonsaiError(err, "SESSION_LIVE"),
  );
  assert.equal(h.rows("SELECT id FROM sessions").length, 1);
});

Deno.test("SessionAdmin.rewind(): rewinding the linked session again (with files) and forgetting either keeps totals whole", async () => {
  await using h = await harness();
  const second = await threeTurns(h);
  const a = admin(h);
  const first = await a.rewind(h.runtime.id, { to: second });
  // The linked session's copied part keeps its tool-call rows in the first session: a
  // rewind of it with --files still finds and reverts what they changed.
  const again = await a.rewind(first.linked.id, { to: 1, files: true });
  assert.deepEqual(
    again.files!.reverted.map((r) => `${r.path} ${r.action}`).sort(),
    ["a.txt restored", "made.txt deleted", "new.txt deleted"],
  );
  assert.equal(await Deno.readTextFile(join(h.root, "a.txt")), "alpha\n");
  assert.equal(again.session.messageCount, 0);
  assert.equal(again.linked.messageCount, first.linked.messageCount);
  const all = h.rows<{ n: number }>("SELECT sum(turns) AS n FROM sessions")[0]!.n;
  assert.equal(all, h.rows("SELECT id FROM ledger WHERE error IS NULL").length);
  a.forget(a.resolve(h.runtime.id));
  assert.equal(h.rows<{ n: number }>("PRAGMA foreign_key_check").length, 0);
});
