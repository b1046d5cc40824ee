import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic, openai } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

// Every budget trips exactly at its boundary, reports a typed exhaustion, exits 6, records
// the reason on the session row, and leaves the session resumable (B1-B5).

interface Setup {
  home: string;
  work: string;
  server: LoopbackServer;
  env: Record<string, string>;
}

async function setup(dir: string, server: LoopbackServer, openaiModel?: string): Promise<Setup> {
  const home = join(dir, "home");
  const work = join(dir, "work");
  await Deno.mkdir(work);
  const env = openaiModel
    ? baseEnv(home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: openaiModel })
    : baseEnv(home, {
      ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
      ANTHROPIC_BASE_URL: server.url,
    });
  return { home, work: await Deno.realPath(work), server, env };
}

async function headless(s: Setup, args: string[]) {
  const out = await runBonsai([...args, "--json"], { cwd: s.work, env: s.env });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(out.stdout);
  } catch {
    assert.fail(`no JSON on stdout (exit ${out.code}): ${out.stderr}`);
  }
  return { code: out.code, json, stderr: out.stderr };
}

function row(
  s: Setup,
  id: string,
): { status: string; end_reason: string; end_detail: string | null } {
  const db = new DatabaseSync(join(s.home, "bonsai.db"), { readOnly: true });
  try {
    return {
      ...db.prepare("SELECT status, end_reason, end_detail FROM sessions WHERE id = ?").get(id),
    } as never;
  } finally {
    db.close();
  }
}

const toolTurn = (id: string, usage?: { input_tokens: number; output_tokens: number }) => ({
  events: anthropic.reply({ calls: [{ id, name: "glob", json: '{"pattern":"*.md"}' }], usage }),
});
const textTurn = (text: string, usage?: { input_tokens: number; output_tokens: number }) => ({
  events: anthropic.reply({ text, usage }),
});

/** The exhausted run's checks shared by every budget, then a resume that completes. */
async function assertExhausted(
  s: Setup,
  result: { code: number; json: Record<string, unknown> },
  reason: string,
) {
  assert.equal(result.code, 6, JSON.stringify(result.json));
  assert.equal(result.json.status, "budget_exhausted");
  const b = result.json.budget_exhaustion as { reason: string; limit: number; used: number };
  assert.equal(b.reason, reason);
  assert.ok(b.used >= b.limit, `used ${b.used} < limit ${b.limit}`);
  const id = String(result.json.session_id);
  const r = row(s, id);
  assert.equal(r.status, "budget_exhausted");
  assert.equal(r.end_reason, reason);
  assert.deepEqual(JSON.parse(r.end_detail!), { limit: b.limit, used: b.used });
  s.server.anthropic(textTurn("resumed fine"));
  s.server.openai({ events: openai.reply({ text: "resumed fine" }) });
  const again = await headless(s, ["-c", id, "-p", "carry on"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.json.session_id, id);
  assert.equal(again.json.status, "completed");
  assert.equal(row(s, id).end_reason, "completed");
  return b;
}

Deno.test("--max-run-time stops before the first call that would start past the limit", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  // Each turn takes ~400 ms: calls start at ~0, ~400, ~800; the check at ~1200 stops the run.
  for (let i = 0; i < 6; i++) server.anthropic({ ...toolTurn(`t${i}`), delayMs: 40 });
  const r = await headless(s, ["-p", "work slowly", "--max-run-time", "1s"]);
  assert.equal(r.json.turns, server.requests.length, "no call was started after the limit");
  assert.ok(Number(r.json.turns) >= 2 && Number(r.json.turns) <= 4);
  // Drop the replies this run did not use, so the resume gets a fresh one.
  while (server.pending > 0) server.takeNext("anthropic");
  const b = await assertExhausted(s, r, "run_time");
  assert.equal(b.limit, 1000);
});

Deno.test("--max-generation-time cuts an attempt that runs too long and keeps its partial output", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  server.anthropic({
    events: anthropic.reply({ text: "a reply that stalls halfway through" }),
    hangAfter: 5,
  });
  const r = await headless(s, ["-p", "answer", "--max-generation-time", "300ms"]);
  const b = await assertExhausted(s, r, "generation_time");
  assert.equal(b.limit, 300);
  assert.ok(String(r.json.result).length > 0, "the partial answer is reported");
});

Deno.test("--max-output-chars: exactly N characters pass, N+1 trip", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  const forty = "x".repeat(40);
  server.anthropic({ events: anthropic.reply({ text: forty, split: 10 }) });
  const ok = await headless(s, ["-p", "forty", "--max-output-chars", "40"]);
  assert.equal(ok.code, 0);
  assert.equal(ok.json.result, forty);
  server.anthropic({ events: anthropic.reply({ text: "y".repeat(41), split: 41 }) });
  const r = await headless(s, ["-p", "forty-one", "--max-output-chars", "40"]);
  const b = await assertExhausted(s, r, "output_chars");
  assert.deepEqual([b.limit, b.used], [40, 41]);
});

Deno.test("--session-max-turns counts turns across processes: run, exit, resume, trip", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  server.anthropic(toolTurn("a"), textTurn("first run done"));
  const first = await headless(s, ["-p", "start"]);
  assert.equal(first.code, 0);
  const id = String(first.json.session_id);
  server.anthropic(toolTurn("b"), toolTurn("c"));
  const before = server.requests.length;
  const r = await headless(s, ["-c", id, "-p", "more", "--session-max-turns", "3"]);
  assert.equal(server.requests.length - before, 1, "exactly one more turn ran: 3, not 4");
  const b = await assertExhausted(s, r, "session_turns");
  assert.deepEqual([b.limit, b.used], [3, 3]);
});

Deno.test("--session-max-output counts streamed characters across processes", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  server.anthropic(textTurn("thirty characters of text ok!!"));
  const first = await headless(s, ["-p", "start"]);
  const id = String(first.json.session_id);
  // 30 so far (< 45): one call starts and streams 18 characters of arguments; 48 >= 45 stops the next.
  server.anthropic(toolTurn("b"), textTurn("never requested"));
  const before = server.requests.length;
  const r = await headless(s, ["-c", id, "-p", "more", "--session-max-output", "45"]);
  assert.equal(server.requests.length - before, 1);
  server.takeNext("anthropic");
  const b = await assertExhausted(s, r, "session_output");
  assert.deepEqual([b.limit, b.used], [45, 48]);
});

Deno.test("--session-max-time counts active time across processes", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  server.anthropic({ ...textTurn("done"), delayMs: 30 });
  const first = await headless(s, ["-p", "start"]);
  const id = String(first.json.session_id);
  const before = server.requests.length;
  const r = await headless(s, ["-c", id, "-p", "more", "--session-max-time", "50ms"]);
  assert.equal(server.requests.length, before, "no call starts once the session's time is spent");
  const b = await assertExhausted(s, r, "session_time");
  assert.equal(b.limit, 50);
  assert.equal(r.json.turns, 0);
});

Deno.test("--session-max-cost with a priced model stops before the call that would start past the limit", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  const usage = { input_tokens: 1000, output_tokens: 100 }; // $0.0045 on claude-sonnet-4-5
  server.anthropic(textTurn("first", usage));
  const first = await headless(s, ["-p", "start"]);
  const id = String(first.json.session_id);
  server.anthropic(toolTurn("b", usage), textTurn("never requested", usage));
  const r = await headless(s, ["-c", id, "-p", "more", "--session-max-cost", "0.008"]);
  const cost = r.json.cost as Record<string, unknown>;
  assert.equal(cost.session_limit_enforced, true);
  const b = await assertExhausted(s, r, "session_cost");
  assert.equal(b.limit, 0.008);
  assert.ok(Math.abs(b.used - 0.009) < 1e-9, String(b.used));
});

Deno.test("--session-max-cost with an unpriced model is not enforced, and the JSON says why", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server, "llama3.2-local");
  server.openai(
    {
      events: openai.reply({
        calls: [{ id: "c1", name: "glob", json: '{"pattern":"*"}' }],
        model: "llama3.2-local",
      }),
    },
    { events: openai.reply({ text: "finished anyway", model: "llama3.2-local" }) },
  );
  const r = await headless(s, ["-p", "go", "--session-max-cost", "0.000001"]);
  assert.equal(r.code, 0, JSON.stringify(r.json));
  assert.equal(r.json.status, "completed");
  const cost = r.json.cost as Record<string, unknown>;
  assert.equal(cost.exact, false);
  assert.equal(cost.unpriced_attempts, 2);
  assert.equal(cost.session_limit_enforced, false);
  assert.match(
    String(cost.enforcement_unavailable_reason),
    /2 response\(s\) without a known price/,
  );
});

Deno.test("rate limits that outlast the retries end as provider_rate_limit; the session resumes", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  for (let i = 0; i < 7; i++) {
    server.anthropic({
      status: 429,
      headers: { "retry-after": "0" },
      body: anthropic.errorBody("rate_limit_error", "busy"),
    });
  }
  const r = await headless(s, ["-p", "hello"]);
  await assertExhausted(s, r, "provider_rate_limit");
});

Deno.test("saved presets apply to every run; a flag overrides them for one run", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const s = await setup(dir.path, server);
  const set = await runBonsai(["settings", "set", "budget.max_turns", "1"], {
    cwd: s.work,
    env: s.env,
  });
  assert.equal(set.code, 0, set.stderr);
  server.anthropic(toolTurn("a"));
  const preset = await headless(s, ["-p", "uses the preset"]);
  assert.equal(preset.code, 6);
  assert.deepEqual(preset.json.budget_exhaustion, { reason: "max_turns", limit: 1, used: 1 });
  server.anthropic(toolTurn("b"), textTurn("two turns allowed"));
  const flag = await headless(s, ["-p", "overrides it", "--max-turns", "3"]);
  assert.equal(flag.code, 0, flag.stderr);
  assert.equal(flag.json.turns, 2);
  const bad = await runBonsai(["-p", "x", "--max-turns", "zero"], { cwd: s.work, env: s.env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-turns: expected a whole number/);
});
