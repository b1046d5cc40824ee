import assert from "node:assert/strict";
import { BonsaiError } from "../../../core/errors.ts";
import {
  findResumable,
  recoverCrashed,
  resumeSession,
  startSession,
} from "../../../core/session/lifecycle.ts";
import { LOST_BEFORE_RUNNING, LOST_WHILE_RUNNING } from "../../../core/session/tool_repair.ts";
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
  const latest = findResumable(db, {
    projectPath: "/work/shop",
    prefix: null,
    me: { pid: 1, host: "h" },
  });
  assert.equal(latest.id, own.id, "the newer imported session is not what -c continues");
  assert.deepEqual(
    sessions.list({ projectPath: "/work/shop", source: "bonsai" }).map((s) => s.id),
    [own.id],
  );
  assert.throws(
    () =>
      findResumable(db, {
        projectPath: "/work/shop",
        prefix: imported.id,
        me: { pid: 1, host: "h" },
      }),
    (err: unknown) =>
      err instanceof BonsaiError && err.code === "USAGE" &&
      /imported from Claude Code and can be shown and searched, not continued/.test(err.message),
  );
});

Deno.test("resumeSession(): tool calls a crash left open are answered (stored results, else lost) before the next request", async () => {
  await using dir = await tempDir();
  const { db, clock, ids } = await openTestDb(dir.path);
  using _ = db;
  const owner = { pid: 111, host: "h" };
  const runtime = startSession(db, ids, { projectPath: "/work/shop", owner });
  runtime.addContext({ role: "user", content: [{ type: "text", text: "do three things" }] }, null);
  const call = (id: string, name: string) => ({
    type: "tool_call" as const,
    id,
    name,
    input: { command: "true" },
    rawInput: '{"command":"true"}',
  });
  runtime.addContext(
    {
      role: "assistant",
      content: [call("c_done", "exec"), call("c_running", "exec"), call("c_asking", "exec")],
    },
    null,
  );
  const record = (callId: string, status: "ok" | "running" | "pending", result: string | null) =>
    runtime.putToolCall({
      callId,
      messageSeq: null,
      toolName: "exec",
      args: '{"command":"true"}',
      status,
      result,
      diff: null,
      exitCode: status === "ok" ? 0 : null,
      startedAt: clock.now(),
      endedAt: status === "ok" ? clock.now() : null,
      durationMs: status === "ok" ? 0 : null,
    });
  record("c_done", "ok", "exit 0\nall good");
  record("c_running", "running", null);
  record("c_asking", "pending", null);
  runtime.flush();
  runtime.heartbeat(clock.now());
  const lastBeat = clock.now();
  // The process dies here. A minute later another one resumes the session.
  clock.advance(60_000);
  const session = new SessionStore(db).get(runtime.id);
  const resumed = resumeSession(db, session, { pid: 222, host: "h" });
  const last = resumed.context.at(-1)!.message;
  assert.equal(last.role, "user");
  assert.deepEqual(
    last.content.map((b) => b.type === "tool_result" ? [b.toolCallId, b.isError, b.content] : []),
    [
      ["c_done", false, "exit 0\nall good"],
      ["c_running", true, LOST_WHILE_RUNNING],
      ["c_asking", true, LOST_BEFORE_RUNNING],
    ],
  );
  const calls = db.connection.prepare(
    "SELECT call_id, status, ended_at, duration_ms FROM tool_calls ORDER BY call_id",
  ).all().map((r) => ({ ...r }));
  assert.deepEqual(calls, [
    { call_id: "c_asking", status: "lost", ended_at: lastBeat, duration_ms: null },
    { call_id: "c_done", status: "ok", ended_at: lastBeat, duration_ms: 0 },
    { call_id: "c_running", status: "lost", ended_at: lastBeat, duration_ms: null },
  ]);
  const shown = db.connection.prepare(
    "SELECT tool_call_id, is_error FROM messages WHERE kind = 'tool_result' ORDER BY seq",
  ).all().map((r) => ({ ...r }));
  assert.deepEqual(shown, [
    { tool_call_id: "c_running", is_error: 1 },
    { tool_call_id: "c_asking", is_error: 1 },
  ], "the transcript shows what became of the lost calls");
  // Resuming again (that process died too) adds nothing: the context is closed.
  clock.advance(60_000);
  const again = resumeSession(db, new SessionStore(db).get(runtime.id), { pid: 333, host: "h" });
  assert.equal(again.context.length, resumed.context.length);
});

Deno.test("recoverCrashed(): an abandoned session becomes interrupted and its open tool calls lost, with what the model will be told", async () => {
  await using dir = await tempDir();
  const { db, clock, ids } = await openTestDb(dir.path);
  using _ = db;
  const runtime = startSession(db, ids, {
    projectPath: "/work/shop",
    owner: { pid: 7, host: "h" },
  });
  runtime.putToolCall({
    callId: "c1",
    messageSeq: null,
    toolName: "exec",
    args: "{}",
    status: "running",
    result: null,
    diff: null,
    exitCode: null,
    startedAt: clock.now(),
    endedAt: null,
    durationMs: null,
  });
  runtime.flush();
  clock.advance(5_000);
  assert.equal(recoverCrashed(db, () => null), 0, "a fresh heartbeat from a process that may live");
  assert.equal(recoverCrashed(db, () => false), 1, "a dead process on this host");
  const row = { ...db.connection.prepare("SELECT status, result FROM tool_calls").get() };
  assert.deepEqual(row, { status: "lost", result: LOST_WHILE_RUNNING });
  const failures = db.connection.prepare("SELECT sum(failures) AS n FROM tool_rollup").get() as {
    n: number;
  };
  assert.equal(failures.n, 1, "the tools dashboard counts it as a failure");
});
