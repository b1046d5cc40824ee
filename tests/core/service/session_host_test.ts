import assert from "node:assert/strict";
import type { HostEvent } from "../../../core/service/host_events.ts";
import { SessionHost } from "../../../core/service/session_host.ts";
import { recoverCrashed } from "../../../core/session/recovery.ts";
import { anthropic } from "../../support/sse_scripts.ts";
import { hostHarness } from "../../support/repl_harness.ts";
import { testIds } from "../../support/db.ts";

type Row = Record<string, unknown>;

async function until(check: () => boolean, what: string): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("SessionHost: the heartbeat beats every 3 s with the active time; after a crash only time up to the last heartbeat counts", async () => {
  await using h = await hostHarness();
  assert.deepEqual(
    [...h.timers.periods].sort(),
    [3000, 500, 500],
    "a 500 ms flush, a 3 s heartbeat and a 500 ms look for peers' messages",
  );
  h.server.anthropic({
    events: anthropic.reply({ text: "a long answer" }),
    hangAfter: 4, // the first piece of text, then silence
  });
  let streamed = "";
  h.host.subscribe((e) => {
    if (e.type === "text") streamed += e.text;
  });
  const running = h.host.prompt("take your time");
  await until(() => streamed === "a long a", "the first piece of the reply");
  const session = () =>
    h.rows<Row>(
      "SELECT status, heartbeat_at, active_ms FROM sessions WHERE id = ?",
      h.host.session.id,
    )[0]!;
  const start = h.clock.now();
  h.clock.advance(3000);
  h.timers.fire();
  assert.deepEqual(session(), { status: "active", heartbeat_at: start + 3000, active_ms: 3000 });
  h.clock.advance(3000);
  h.timers.fire();
  assert.deepEqual(session(), { status: "active", heartbeat_at: start + 6000, active_ms: 6000 });
  // The process stops beating (kill -9, a power cut): the next process to open the database
  // finds the session stale and counts only what the last heartbeat saved.
  h.clock.advance(60_000);
  assert.equal(recoverCrashed(h.db, () => null), 1);
  assert.deepEqual(session(), {
    status: "interrupted",
    heartbeat_at: start + 6000,
    active_ms: 6000,
  });
  // A new owner resumes it: the session-time budget starts from those 6 s.
  const other = await SessionHost.open(
    {
      db: h.db,
      clock: h.clock,
      ids: testIds(h.clock, 9),
      env: {
        ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
        ANTHROPIC_BASE_URL: h.server.url,
      },
      fetch,
      random: () => 0,
      owner: { pid: 5151, host: "test-host" },
      probe: () => null,
      platform: "linux",
      timers: h.timers,
    },
    {
      root: h.root,
      providerFlags: {},
      allow: [],
      budgetFlags: { "session-max-time": "5s" },
      context: {},
      interactive: false,
    },
    { resume: { prefix: h.host.session.id } },
  );
  const outcome = await other.prompt("go on");
  assert.equal(outcome.result.status, "budget_exhausted");
  assert.deepEqual(outcome.result.budgetExhaustion, {
    reason: "session_time",
    limit: 5000,
    used: 6000,
  });
  await other.close("done");
  // The first process wakes up: its epoch is stale, so it writes nothing into the session;
  // its unsaved work (the cancelled partial reply) goes on in a fork it now runs.
  const taken = h.host.session.id;
  h.host.cancel();
  await assert.rejects(
    running,
    /was taken over by process 5151 on test-host at .*; this process's unsaved work is kept in new session 'take your time \(kept after a takeover\)' \(bonsai -c \w{10}\), and the other can be continued with bonsai -c \w{10} once that process is done/,
  );
  const fork = h.host.session;
  assert.notEqual(fork.id, taken);
  assert.equal(fork.parentId, taken);
  assert.deepEqual(
    h.rows("SELECT role, status, text FROM messages WHERE session_id = ? ORDER BY seq", fork.id),
    [{ role: "assistant", status: "cancelled", text: "a long a" }],
    "the reply the stale owner kept, with its last state",
  );
  assert.deepEqual(
    h.rows("SELECT seq, role, status, text FROM messages WHERE session_id = ? ORDER BY seq", taken),
    [
      { seq: 1, role: "user", status: "complete", text: "take your time" },
      { seq: 2, role: "assistant", status: "failed", text: "a long a" },
      { seq: 3, role: "user", status: "complete", text: "go on" },
    ],
    "the other process's turn is intact: nothing of the stale owner was written over it",
  );
});

Deno.test("SessionHost: a flush or heartbeat that fails is reported once, retried, and never thrown from a timer", async () => {
  await using h = await hostHarness();
  const events: HostEvent[] = [];
  h.host.subscribe((e) => events.push(e));
  // A failure only this connection sees (a temporary trigger), like a disk that refuses writes.
  h.db.connection.exec(
    "CREATE TEMP TRIGGER refuse BEFORE UPDATE ON sessions BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
  );
  h.host.rename("A new title");
  h.timers.fire();
  h.timers.fire();
  const warnings = events.filter((e) => e.type === "notice" && e.level === "warning");
  assert.equal(warnings.length, 2, "one for the flush, one for the heartbeat, each once");
  assert.match(JSON.stringify(warnings), /Could not save the session \(will retry\): disk says no/);
  assert.match(JSON.stringify(warnings), /Could not stamp the heartbeat \(will retry\)/);
  h.db.connection.exec("DROP TRIGGER refuse");
  h.timers.fire();
  assert.ok(events.some((e) => e.type === "notice" && /Saving works again/.test(e.message)));
  assert.equal(
    h.rows<{ title: string }>("SELECT title FROM sessions WHERE id = ?", h.host.session.id)[0]!
      .title,
    "A new title",
    "nothing was lost",
  );
});

Deno.test("SessionHost: a permission request is an event the front end answers; cancelling while it is open answers nothing and the run ends", async () => {
  await using h = await hostHarness();
  const requests: number[] = [];
  h.host.subscribe((e) => {
    if (e.type === "permission_request") requests.push(e.id);
  });
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "toolu_w", name: "write", json: '{"path":"a.txt","content":"a"}' }],
      }),
    },
  );
  const running = h.host.prompt("write a file");
  await until(() => requests.length === 1, "the permission request");
  assert.equal(
    h.rows<Row>("SELECT status FROM tool_calls")[0]!.status,
    "pending",
    "a call waiting for an answer is pending, not running",
  );
  assert.equal(h.host.cancel(), true);
  const outcome = await running;
  assert.equal(outcome.result.status, "cancelled");
  h.host.answerPermission(requests[0]!, "once"); // too late: ignored
  await assert.rejects(() => Deno.stat(`${h.root}/a.txt`));
  assert.equal(h.rows<Row>("SELECT status FROM tool_calls")[0]!.status, "cancelled");
  const perm = h.rows<Row>("SELECT text FROM messages WHERE kind = 'permission'")[0]!;
  assert.match(String(perm.text), /not answered: the run was cancelled/);
  // The context answers the call, so the next request is one both APIs accept.
  h.server.anthropic({ events: anthropic.reply({ text: "fine" }) });
  const next = await h.host.prompt("never mind");
  assert.equal(next.result.status, "completed");
});

Deno.test("SessionHost: /new in the middle of a tool call cancels and settles the turn first; the old session stays one both APIs accept", async () => {
  await using h = await hostHarness({ host: { allow: ["exec"] } });
  h.server.anthropic({
    events: anthropic.reply({
      calls: [{ id: "toolu_slow", name: "exec", json: '{"command":"sleep 5"}' }],
    }),
  });
  const old = h.host.session.id;
  const running = h.host.prompt("run something slow");
  await until(
    () => h.rows("SELECT 1 FROM tool_calls WHERE status = 'running'").length === 1,
    "the tool to run",
  );
  const fresh = await h.host.rotate("new");
  assert.equal((await running).result.status, "cancelled");
  assert.notEqual(fresh.id, old);
  assert.deepEqual(h.rows("SELECT status FROM tool_calls"), [{ status: "cancelled" }]);
  assert.deepEqual(h.rows("SELECT status, end_reason FROM sessions WHERE id = ?", old), [{
    status: "completed",
    end_reason: "new",
  }]);
  // Back in the old session, the next request is accepted by the strict server.
  await h.host.resume(old);
  h.server.anthropic({ events: anthropic.reply({ text: "picked up" }) });
  const next = await h.host.prompt("where were we?");
  assert.equal(next.result.status, "completed", JSON.stringify(next.result.error));
});

Deno.test("SessionHost: when bonsai itself fails during a tool call (the database refuses), every call is settled and answered, and the error reaches the front end", async () => {
  await using h = await hostHarness({ host: { allow: ["exec"] } });
  h.server.anthropic({
    events: anthropic.reply({
      calls: [
        { id: "toolu_a", name: "exec", json: '{"command":"echo a"}' },
        { id: "toolu_b", name: "exec", json: '{"command":"echo b"}' },
      ],
    }),
  });
  h.db.connection.exec(
    "CREATE TEMP TRIGGER refuse BEFORE INSERT ON tool_calls BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
  );
  await assert.rejects(() => h.host.prompt("run two things"), /disk says no/);
  h.db.connection.exec("DROP TRIGGER refuse");
  h.host.flush();
  assert.deepEqual(
    h.rows(
      "SELECT call_id, status, substr(result, 1, 8) AS result FROM tool_calls ORDER BY call_id",
    ),
    [
      { call_id: "toolu_a", status: "error", result: "Stopped:" },
      { call_id: "toolu_b", status: "error", result: "Not run:" },
    ],
  );
  // The strict server accepts what comes next: both calls have results.
  h.server.anthropic({ events: anthropic.reply({ text: "understood" }) });
  assert.equal((await h.host.prompt("what happened?")).result.status, "completed");
});

Deno.test("SessionHost: a listener that throws does not stop the turn; its error is rethrown once the turn is saved", async () => {
  await using h = await hostHarness();
  h.host.subscribe((e) => {
    if (e.type === "text") throw new Error("the terminal went away");
  });
  h.server.anthropic({ events: anthropic.reply({ text: "all of it" }) });
  await assert.rejects(() => h.host.prompt("say something"), /the terminal went away/);
  h.host.flush();
  assert.deepEqual(h.rows("SELECT text, status FROM messages WHERE role = 'assistant'"), [
    { text: "all of it", status: "complete" },
  ]);
});
