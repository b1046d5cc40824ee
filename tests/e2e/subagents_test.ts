// The task tool (issue 17): subagents run in their own lane through the real program and
// the loopback provider, in parallel, within the parent's permissions; Ctrl-C and kill -9
// reach them, and every parent call is answered afterwards.
import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, runBonsai, spawnBonsai } from "../support/bonsai_process.ts";
import { LoopbackServer, type ScriptedReply } from "../support/loopback_server.ts";
import { openai } from "../support/sse_scripts.ts";
import { queryHome } from "../support/db.ts";
import { tempDir } from "../support/temp.ts";

const query = queryHome;

type Body = { messages: { role: string; content: unknown }[]; model: string };

/** The job description of a subagent's request (from its system prompt), or null for the parent. */
function jobOf(body: Body): string | null {
  const system = String(body.messages[0]?.content ?? "");
  return /^You are a bonsai subagent: .*?\("([^"]+)"\)/.exec(system)?.[1] ?? null;
}

/** The tool results the last message of a request carries. */
function lastIsToolResult(body: Body): boolean {
  return body.messages.at(-1)?.role === "tool";
}

const task = (id: string, args: Record<string, unknown>) => ({
  id,
  name: "task",
  json: JSON.stringify(args),
});

async function setup() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  return { dir, home, work: await Deno.realPath(work) };
}

Deno.test("two task calls in one turn run at once, in lane subagent with their own model; totals, /perf and budgets count them", async () => {
  const p = await setup();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const arrived = new Map<string, number>();
  server.route((_route, raw) => {
    const body = raw as unknown as Body;
    const job = jobOf(body);
    if (job === null) {
      return lastIsToolResult(body)
        ? {
          events: openai.reply({
            text: "Both jobs are done.",
            usage: { prompt_tokens: 300, completion_tokens: 20 },
          }),
        }
        : {
          events: openai.reply({
            text: "Splitting the work.",
            calls: [
              task("call_a", { description: "count lines", prompt: "How many lines has a.txt?" }),
              task("call_b", {
                description: "read notes",
                prompt: "Summarise notes.txt",
                model: "gpt-4o-mini",
                tools: ["read", "grep"],
              }),
            ],
            usage: { prompt_tokens: 200, completion_tokens: 30 },
          }),
        };
    }
    arrived.set(job, performance.now());
    // Slow replies: run one after the other, the second would start ~1 s after the first.
    const reply = job === "count lines"
      ? openai.reply({
        text: "a.txt has 3 lines.",
        model: "gpt-4o-2024-08-06",
        split: 2,
        usage: { prompt_tokens: 100, completion_tokens: 7 },
      })
      : openai.reply({
        text: "Notes: buy milk.",
        model: "gpt-4o-mini-2024-07-18",
        split: 2,
        usage: { prompt_tokens: 80, completion_tokens: 5 },
      });
    return { events: reply, delayMs: 60 } satisfies ScriptedReply;
  });
  const env = baseEnv(p.home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: "gpt-4o" });
  const run = await runBonsai(["-p", "do two things at once", "--json"], { cwd: p.work, env });
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.result, "Both jobs are done.");
  assert.ok(
    Math.abs(arrived.get("count lines")! - arrived.get("read notes")!) < 500,
    "the two subagents' requests came at once",
  );

  const parent = out.session_id as string;
  const children = query<
    { id: string; title: string; parent_id: string; status: string; model: string }
  >(
    p.home,
    "SELECT id, title, parent_id, status, model FROM sessions WHERE parent_id = ? ORDER BY title",
    parent,
  );
  assert.deepEqual(children.map((c) => [c.title, c.status, c.model]), [
    ["Subagent: count lines", "completed", "gpt-4o"],
    ["Subagent: read notes", "completed", "gpt-4o-mini"],
  ]);
  // Both transcripts are kept whole and searchable.
  for (const child of children) {
    const roles = query<{ role: string }>(
      p.home,
      "SELECT role FROM messages WHERE session_id = ? ORDER BY seq",
      child.id,
    );
    assert.deepEqual(roles.map((r) => r.role), ["user", "assistant"]);
  }
  const hits = await runBonsai(["search", "buy milk", "--json"], { cwd: p.work, env });
  assert.ok(
    JSON.parse(hits.stdout).some((h: { session_id: string }) => h.session_id === children[1]!.id),
  );

  // Usage: lane subagent rows with their own models, filed under the parent session.
  const rows = query<{ lane: string; model: string; session_id: string }>(
    p.home,
    "SELECT lane, model, session_id FROM ledger ORDER BY lane, model",
  );
  assert.deepEqual(rows.map((r) => [r.lane, r.model]), [
    ["parent", "gpt-4o-2024-08-06"],
    ["parent", "gpt-4o-2024-08-06"],
    ["subagent", "gpt-4o-2024-08-06"],
    ["subagent", "gpt-4o-mini-2024-07-18"],
  ]);
  assert.ok(rows.every((r) => r.session_id === parent));
  const [row] = query<{ total_tokens: number }>(
    p.home,
    "SELECT total_tokens FROM sessions WHERE id = ?",
    parent,
  );
  assert.equal(
    row!.total_tokens,
    200 + 30 + 300 + 20 + 100 + 7 + 80 + 5,
    "session totals fold the subagents in",
  );
  assert.equal(
    out.usage.input_tokens + out.usage.output_tokens,
    742,
    "the run's JSON counts them too",
  );

  // sessions show lists the subagents under the parent, with the usage by lane.
  const show = await runBonsai(["sessions", "show", parent, "--json"], { cwd: p.work, env });
  const detail = JSON.parse(show.stdout);
  assert.deepEqual(
    detail.subagents.map((s: { title: string }) => s.title).sort(),
    ["Subagent: count lines", "Subagent: read notes"],
  );
  const people = await runBonsai(["sessions", "show", parent], { cwd: p.work, env });
  assert.match(
    people.stdout,
    /subagent\s+\S+ Subagent: count lines \(completed, gpt-4o, 2 messages\)/,
  );
  const lanes = detail.usage_by_lane.map((l: { lane: string; model: string }) =>
    `${l.lane}/${l.model}`
  );
  assert.ok(lanes.includes("subagent/gpt-4o-mini-2024-07-18"), lanes.join(","));

  // A session budget counts the subagents' responses: 2 + 2 of 4 are used, so the next
  // run is refused before it asks the model anything.
  const before = server.requests.length;
  const again = await runBonsai(["-c", "-p", "more", "--json", "--session-max-turns", "4"], {
    cwd: p.work,
    env,
  });
  assert.equal(again.code, 6, again.stdout + again.stderr);
  assert.equal(server.requests.length, before, "no request was made");
});

Deno.test("a subagent gets no tool its parent lacks, and no permission the parent has not got", async () => {
  const p = await setup();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const results: string[] = [];
  server.route((_route, raw) => {
    const body = raw as unknown as Body;
    const job = jobOf(body);
    if (job === null) {
      if (lastIsToolResult(body)) {
        for (const m of body.messages.filter((m) => m.role === "tool")) {
          results.push(String(m.content));
        }
        return { events: openai.reply({ text: "Done." }) };
      }
      return {
        events: openai.reply({
          calls: [
            task("call_x", { description: "nest", prompt: "go", tools: ["task"] }),
            task("call_y", { description: "run it", prompt: "run the tests" }),
          ],
        }),
      };
    }
    return lastIsToolResult(body)
      ? { events: openai.reply({ text: "I could not run the tests." }) }
      : {
        events: openai.reply({
          calls: [{ id: "call_e", name: "exec", json: '{"command":"echo ran > ran.txt"}' }],
        }),
      };
  });
  const env = baseEnv(p.home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: "gpt-4o" });
  // Headless without --allow: the parent may not exec, so its subagent may not either.
  const run = await runBonsai(["-p", "delegate", "--json"], { cwd: p.work, env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(results.find((r) => r.includes("cannot have")) ?? "", /cannot have 'task'/);
  const calls = query<{ tool_name: string; status: string }>(
    p.home,
    "SELECT tool_name, status FROM tool_calls WHERE tool_name = 'exec'",
  );
  assert.deepEqual(calls, [{ tool_name: "exec", status: "denied" }]);
  await assert.rejects(Deno.stat(join(p.work, "ran.txt")), Deno.errors.NotFound);
  // The decision is recorded in the subagent's own transcript.
  const permission = query<{ text: string; kind: string }>(
    p.home,
    `SELECT m.text, s.kind FROM messages m JOIN sessions s ON s.id = m.session_id
     WHERE m.kind = 'permission'`,
  );
  assert.equal(permission.length, 1);
  assert.equal(permission[0]!.kind, "subagent");
  assert.match(permission[0]!.text, /denied: no one to ask in headless mode/);
});

Deno.test("SIGINT during a subagent cancels it; kill -9 during one leaves it lost and -c answers the call", async (t) => {
  for (const signal of ["SIGINT", "SIGKILL"] as const) {
    await t.step(signal, async () => {
      const p = await setup();
      await using _ = p.dir;
      await using server = await LoopbackServer.start();
      let subagentStarted = false;
      server.route((_route, raw) => {
        const body = raw as unknown as Body;
        const job = jobOf(body);
        if (job !== null) {
          subagentStarted = true;
          // Streams a little, then hangs: the subagent is mid-reply when the signal comes.
          return {
            events: openai.reply({ text: "Working on it for a long time", split: 3 }),
            hangAfter: 2,
          };
        }
        const results = body.messages.filter((m) => m.role === "tool").map((m) =>
          String(m.content)
        );
        if (results.length) {
          return { events: openai.reply({ text: `continued after: ${results.join(" | ")}` }) };
        }
        return {
          events: openai.reply({
            calls: [task("call_s", { description: "slow job", prompt: "take your time" })],
          }),
        };
      });
      const env = baseEnv(p.home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: "gpt-4o" });
      const child = spawnBonsai(["-p", "start a slow job", "--json"], { cwd: p.work, env });
      for (let i = 0; i < 400 && !subagentStarted; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 300));
      child.kill(signal);
      const status = await child.status;
      await child.stdout.cancel();
      await child.stderr.cancel();
      const sub = () =>
        query<{ status: string; end_reason: string | null }>(
          p.home,
          "SELECT status, end_reason FROM sessions WHERE parent_id IS NOT NULL",
        )[0]!;
      const call = () =>
        query<{ status: string }>(
          p.home,
          "SELECT status FROM tool_calls WHERE call_id = 'call_s'",
        )[0]!;
      if (signal === "SIGINT") {
        assert.equal(status.code, 130);
        assert.deepEqual(sub(), { status: "interrupted", end_reason: "cancelled" });
        assert.equal(call().status, "cancelled");
      } else {
        assert.equal(status.success, false);
      }
      const resumed = await runBonsai(["-c", "-p", "what happened?", "--json"], {
        cwd: p.work,
        env,
      });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(JSON.parse(resumed.stdout).result, /^continued after: /);
      if (signal === "SIGKILL") {
        assert.equal(call().status, "lost");
        assert.equal(sub().status, "interrupted", "the subagent's own session is recovered too");
      }
    });
  }
});
