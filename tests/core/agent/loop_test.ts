import assert from "node:assert/strict";
import { join } from "node:path";
import { harness } from "../../support/agent_harness.ts";
import { anthropic, openai } from "../../support/sse_scripts.ts";

const signal = () => new AbortController().signal;

Deno.test("Agent.run(): plain text is recorded in transcript, context and ledger (both protocols)", async (t) => {
  for (const provider of ["anthropic", "openai"] as const) {
    await t.step(provider, async () => {
      await using h = await harness({ provider });
      if (provider === "anthropic") {
        h.server.anthropic({ events: anthropic.reply({ text: "Hello!" }) });
      } else h.server.openai({ events: openai.reply({ text: "Hello!" }) });
      const result = await h.agent.run("say hello", { signal: signal() });
      assert.equal(result.status, "completed");
      assert.equal(result.result, "Hello!");
      assert.equal(result.turns, 1);
      const messages = h.rows<
        { role: string; kind: string; text: string; status: string; ledger_id: number | null }
      >(
        "SELECT role, kind, text, status, ledger_id FROM messages ORDER BY seq",
      );
      assert.deepEqual(messages.map((m) => [m.role, m.kind, m.text, m.status]), [
        ["user", "text", "say hello", "complete"],
        ["assistant", "text", "Hello!", "complete"],
      ]);
      assert.ok(messages[1]!.ledger_id !== null, "the reply links to its usage row");
      assert.equal(h.rows("SELECT * FROM ledger").length, 1);
      assert.equal(h.rows("SELECT * FROM context_items").length, 2);
    });
  }
});

Deno.test("Agent.run(): split arguments and two parallel tool calls run in order with read evidence", async (t) => {
  for (const provider of ["anthropic", "openai"] as const) {
    await t.step(provider, async () => {
      await using h = await harness({ provider });
      await Deno.writeTextFile(join(h.root, "a.txt"), "alpha\n");
      await Deno.writeTextFile(join(h.root, "b.txt"), "beta\nbeta2\n");
      const calls = [
        { id: "call_a", name: "read", json: JSON.stringify({ path: "a.txt" }) },
        { id: "call_b", name: "read", json: JSON.stringify({ path: "b.txt", offset: 2 }) },
      ];
      if (provider === "anthropic") {
        h.server.anthropic({ events: anthropic.reply({ calls, split: 2 }) }, {
          events: anthropic.reply({ text: "Both read." }),
        });
      } else {
        h.server.openai({ events: openai.reply({ calls, split: 2 }) }, {
          events: openai.reply({ text: "Both read." }),
        });
      }
      const result = await h.agent.run("read both", { signal: signal() });
      assert.equal(result.status, "completed");
      assert.equal(result.turns, 2);
      const tools = h.rows<{ call_id: string; status: string; result: string }>(
        "SELECT call_id, status, result FROM tool_calls ORDER BY id",
      );
      assert.deepEqual(tools.map((c) => [c.call_id, c.status]), [["call_a", "ok"], [
        "call_b",
        "ok",
      ]]);
      assert.match(tools[0]!.result, /1\talpha/);
      assert.match(tools[1]!.result, /2\tbeta2/);
      const reads = h.rows<{ path: string; start_line: number; end_line: number }>(
        "SELECT path, start_line, end_line FROM read_evidence ORDER BY id",
      );
      assert.deepEqual(reads.map((r) => [r.path, r.start_line, r.end_line]), [["a.txt", 1, 1], [
        "b.txt",
        2,
        2,
      ]]);
      const ctx = h.rows<{ role: string; body: string }>(
        "SELECT role, body FROM context_items ORDER BY seq",
      );
      assert.deepEqual(ctx.map((c) => c.role), ["user", "assistant", "user", "assistant"]);
      const results = JSON.parse(ctx[2]!.body).content;
      assert.deepEqual(results.map((r: { toolCallId: string }) => r.toolCallId), [
        "call_a",
        "call_b",
      ]);
    });
  }
});

Deno.test("Agent.run(): cache usage is priced and telemetry predicts the next cache read", async () => {
  await using h = await harness();
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "t1", name: "glob", json: '{"pattern":"*"}' }],
        usage: {
          input_tokens: 50,
          output_tokens: 20,
          cache_creation_input_tokens: 3000,
          cache_5m: 2000,
          cache_1h: 1000,
        },
      }),
    },
    {
      events: anthropic.reply({
        text: "done",
        usage: {
          input_tokens: 40,
          output_tokens: 10,
          cache_read_input_tokens: 3050,
          cache_creation_input_tokens: 60,
        },
      }),
    },
  );
  const result = await h.agent.run("list", { signal: signal() });
  assert.equal(result.status, "completed");
  const rows = h.rows<Record<string, number | null>>("SELECT * FROM ledger ORDER BY seq");
  assert.equal(rows[0]!.cache_write_5m_tokens, 2000);
  assert.equal(rows[0]!.cache_write_1h_tokens, 1000);
  // sonnet 4.5: 50*3 + 20*15 + 2000*3.75 + 1000*6 per million
  assert.ok(
    Math.abs(rows[0]!.cost_usd! - (50 * 3 + 20 * 15 + 2000 * 3.75 + 1000 * 6) / 1e6) < 1e-12,
  );
  assert.ok(Math.abs(rows[0]!.baseline_cost_usd! - (3050 * 3 + 20 * 15) / 1e6) < 1e-12);
  assert.equal(rows[0]!.expected_cache_read_pct, null, "no previous request to predict from");
  assert.equal(rows[1]!.prefix_rewrite, 0);
  // The first prompt (50 + 3000 tokens) over the second (40 + 3050 + 60).
  assert.equal(rows[1]!.expected_cache_read_pct, Math.round((3050 / 3150) * 1000) / 10);
  assert.ok(Math.abs(rows[1]!.actual_cache_read_pct! - (3050 / 3150) * 100) < 0.1);
  assert.equal(result.cost.exact, true);
});

Deno.test("Agent.run(): 429 and 529 attempts are their own ledger rows; the retry is noted in the transcript", async () => {
  await using h = await harness();
  h.server.anthropic(
    {
      status: 429,
      headers: { "retry-after": "3" },
      body: anthropic.errorBody("rate_limit_error", "slow down"),
    },
    { status: 529, body: anthropic.errorBody("overloaded_error", "Overloaded") },
    { events: anthropic.reply({ text: "ok" }) },
  );
  const result = await h.agent.run("hi", { signal: signal() });
  assert.equal(result.status, "completed");
  assert.deepEqual(h.sleeps, [3000, 1000]);
  const ledger = h.rows<
    { attempt: number; error: string | null; input_tokens: number; usage_exact: number }
  >(
    "SELECT attempt, error, input_tokens, usage_exact FROM ledger ORDER BY seq",
  );
  assert.deepEqual(
    ledger.map((l) => [l.attempt, l.error !== null, l.input_tokens, l.usage_exact]),
    [
      [1, true, 0, 1],
      [2, true, 0, 1],
      [3, false, 10, 1],
    ],
  );
  const notices = h.rows<{ text: string }>("SELECT text FROM messages WHERE kind = 'notice'");
  assert.equal(notices.length, 2);
  assert.match(notices[0]!.text, /retrying in 3.0s/);
  assert.equal(result.cost.exact, true);
  assert.deepEqual(
    h.rows<{ turns: number; unpriced_attempts: number }>(
      "SELECT turns, unpriced_attempts FROM sessions",
    )[0],
    { turns: 1, unpriced_attempts: 0 },
    "every attempt is a ledger row, but only the completed response is a turn",
  );
});

Deno.test("Agent.run(): a dropped stream keeps the partial (failed) and the retried answer", async (t) => {
  for (const provider of ["anthropic", "openai"] as const) {
    await t.step(provider, async () => {
      await using h = await harness({ provider });
      const first = provider === "anthropic"
        ? { events: anthropic.reply({ text: "partial words that get cut" }), dropAfter: 5 }
        : { events: openai.reply({ text: "partial words that get cut" }), dropAfter: 3 };
      const second = provider === "anthropic"
        ? { events: anthropic.reply({ text: "the full answer" }) }
        : { events: openai.reply({ text: "the full answer" }) };
      if (provider === "anthropic") h.server.anthropic(first, second);
      else h.server.openai(first, second);
      const result = await h.agent.run("hi", { signal: signal() });
      assert.equal(result.status, "completed");
      assert.equal(result.result, "the full answer");
      const texts = h.rows<{ text: string; status: string }>(
        "SELECT text, status FROM messages WHERE role = 'assistant' ORDER BY seq",
      );
      assert.equal(texts.length, 2);
      assert.equal(texts[0]!.status, "failed");
      assert.ok(
        texts[0]!.text.length > 0 && "partial words that get cut".startsWith(texts[0]!.text),
      );
      assert.deepEqual(texts[1], { text: "the full answer", status: "complete" });
      const ledger = h.rows<{ error: string | null; usage_exact: number; output_chars: number }>(
        "SELECT error, usage_exact, output_chars FROM ledger ORDER BY seq",
      );
      assert.equal(ledger.length, 2);
      assert.match(ledger[0]!.error!, /dropped|ended/);
      assert.equal(ledger[0]!.usage_exact, 0);
      assert.equal(
        ledger[0]!.output_chars,
        texts[0]!.text.length,
        "a failed attempt's output counts",
      );
      assert.equal(result.cost.exact, false, "a broken-off stream leaves the cost a floor");
      const ctx = h.rows<{ body: string }>(
        "SELECT body FROM context_items WHERE role = 'assistant'",
      );
      assert.equal(ctx.length, 1, "only the complete answer enters the context");
    });
  }
});

Deno.test("Agent.run(): malformed tool JSON and unknown tools become tool errors, never crashes", async () => {
  await using h = await harness({ provider: "openai" });
  h.server.openai(
    {
      events: openai.reply({
        calls: [
          { id: "c1", name: "read", json: '{"path": "x.txt",' },
          { id: "c2", name: "fly", json: "{}" },
          { id: "c3", name: "read", json: '{"path": 42}' },
        ],
      }),
    },
    { events: openai.reply({ text: "sorry" }) },
  );
  const result = await h.agent.run("go", { signal: signal() });
  assert.equal(result.status, "completed");
  const calls = h.rows<{ status: string; result: string }>(
    "SELECT status, result FROM tool_calls ORDER BY id",
  );
  assert.deepEqual(calls.map((c) => c.status), ["error", "error", "error"]);
  assert.match(calls[0]!.result, /not valid JSON/);
  assert.match(calls[1]!.result, /Unknown tool 'fly'/);
  assert.match(calls[2]!.result, /Invalid arguments for read: path/);
  const sent =
    (h.server.requests[1]!.body as { messages: { role: string; content: string }[] }).messages;
  assert.deepEqual(sent.slice(-3).map((m) => m.role), ["tool", "tool", "tool"]);
});

Deno.test("Agent.run(): a non-retryable error event fails the run and keeps the partial", async () => {
  await using h = await harness();
  const partial = anthropic.reply({ text: "I will now answer at length" });
  h.server.anthropic({
    events: [...partial.slice(0, 5), anthropic.error("invalid_request_error", "bad thing")],
  });
  const result = await h.agent.run("hi", { signal: signal() });
  assert.equal(result.status, "failed");
  assert.match(result.error!.message, /invalid_request_error: bad thing/);
  const msgs = h.rows<{ kind: string; status: string; text: string }>(
    "SELECT kind, status, text FROM messages WHERE role != 'user' ORDER BY seq",
  );
  assert.equal(msgs[0]!.status, "failed");
  assert.ok(msgs[0]!.text.length > 0);
  assert.equal(msgs[1]!.kind, "error");
  assert.equal(h.rows("SELECT * FROM ledger WHERE error IS NOT NULL").length, 1);
});

Deno.test("Agent.run(): rate limits that outlast the retries end as a provider_rate_limit budget exhaustion", async () => {
  await using h = await harness();
  for (let i = 0; i < 7; i++) {
    h.server.anthropic({ status: 429, body: anthropic.errorBody("rate_limit_error", "busy") });
  }
  const result = await h.agent.run("hi", { signal: signal() });
  assert.equal(result.status, "budget_exhausted");
  assert.equal(result.budgetExhaustion?.reason, "provider_rate_limit");
  assert.equal(h.rows("SELECT * FROM ledger").length, 7);
});

Deno.test("Agent.run(): cancelling mid-stream keeps the partial reply, marked cancelled, in transcript and context", async () => {
  await using h = await harness();
  h.server.anthropic({
    events: anthropic.reply({ text: "streaming a long answer" }),
    hangAfter: 5,
  });
  const controller = new AbortController();
  const result = await h.agent.run("hi", {
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type === "text") controller.abort();
    },
  });
  assert.equal(result.status, "cancelled");
  const reply = h.rows<{ status: string; text: string }>(
    "SELECT status, text FROM messages WHERE role = 'assistant'",
  )[0]!;
  assert.equal(reply.status, "cancelled");
  assert.ok(reply.text.length > 0);
  const ctx = h.rows<{ body: string }>("SELECT body FROM context_items WHERE role = 'assistant'");
  assert.equal(JSON.parse(ctx[0]!.body).content[0].text, reply.text);
});

Deno.test("Agent.run(): --max-turns stops before the next provider call, not after", async () => {
  await using h = await harness({ limits: { maxTurns: 2 } });
  const call = (id: string) => ({
    events: anthropic.reply({ calls: [{ id, name: "glob", json: '{"pattern":"*"}' }] }),
  });
  h.server.anthropic(call("t1"), call("t2"), call("t3"));
  const result = await h.agent.run("loop forever", { signal: signal() });
  assert.equal(result.status, "budget_exhausted");
  assert.deepEqual(result.budgetExhaustion, { reason: "max_turns", limit: 2, used: 2 });
  assert.equal(result.turns, 2);
  assert.equal(h.server.requests.length, 2);
  assert.equal(h.rows("SELECT * FROM tool_calls").length, 2, "the second turn's tools still ran");
});

Deno.test("Agent.run(): a stalled tool is cancelled at the tool timeout with its processes, and the run goes on", async () => {
  await using h = await harness({ limits: { toolTimeoutMs: 400 } });
  const marker = `bonsai-stall-${crypto.randomUUID()}`;
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{
          id: "t1",
          name: "exec",
          json: JSON.stringify({ command: `sh -c 'sleep 1000; echo ${marker}' & sleep 1000` }),
        }],
      }),
    },
    { events: anthropic.reply({ text: "It timed out; moving on." }) },
  );
  const started = Date.now();
  const result = await h.agent.run("run it", { signal: signal() });
  assert.ok(Date.now() - started < 5000);
  assert.equal(result.status, "completed");
  assert.equal(result.result, "It timed out; moving on.");
  const call = h.rows<{ status: string; result: string }>(
    "SELECT status, result FROM tool_calls",
  )[0]!;
  assert.equal(call.status, "timeout");
  assert.match(call.result, /timed out/);
  await new Promise((r) => setTimeout(r, 100));
  const ps = new TextDecoder().decode(
    (await new Deno.Command("ps", { args: ["-eo", "stat,args"] }).output()).stdout,
  );
  const alive = ps.split("\n").filter((l) => l.includes("sleep 1000") && !l.startsWith("Z"));
  assert.deepEqual(alive.filter((l) => l.includes(marker) || /^\S+\s+sleep 1000$/.test(l)), []);
});

Deno.test("Agent.run() on OpenAI: cached tokens, a 429 and a retried error chunk are persisted per attempt", async () => {
  await using h = await harness({ provider: "openai" });
  const partial = openai.reply({ text: "starting" });
  h.server.openai(
    {
      status: 429,
      headers: { "retry-after": "1" },
      body: openai.errorBody("Rate limit reached", "requests", "rate_limit_exceeded"),
    },
    {
      events: [
        ...partial.slice(0, 2),
        openai.error("The server had an error while processing your request"),
      ],
    },
    {
      events: openai.reply({
        text: "final",
        usage: {
          prompt_tokens: 5000,
          completion_tokens: 200,
          cached_tokens: 4096,
          reasoning_tokens: 50,
        },
      }),
    },
  );
  const result = await h.agent.run("hi", { signal: signal() });
  assert.equal(result.status, "completed");
  const rows = h.rows<Record<string, number | string | null>>(
    "SELECT attempt, error, input_tokens, cache_read_tokens, output_tokens, reasoning_tokens, cost_usd, usage_exact FROM ledger ORDER BY seq",
  );
  assert.equal(rows.length, 3);
  assert.match(String(rows[0]!.error), /429/);
  assert.match(String(rows[1]!.error), /server had an error/);
  assert.equal(rows[1]!.usage_exact, 0);
  assert.deepEqual([
    rows[2]!.input_tokens,
    rows[2]!.cache_read_tokens,
    rows[2]!.output_tokens,
    rows[2]!.reasoning_tokens,
  ], [904, 4096, 200, 50]);
  // gpt-4o: 904 * 2.5 + 4096 * 1.25 + 200 * 10 per million
  assert.ok(
    Math.abs(Number(rows[2]!.cost_usd) - (904 * 2.5 + 4096 * 1.25 + 200 * 10) / 1e6) < 1e-12,
  );
  const failed = h.rows<{ status: string; text: string }>(
    "SELECT status, text FROM messages WHERE role = 'assistant' ORDER BY seq",
  );
  assert.deepEqual(failed.map((m) => m.status), ["failed", "complete"]);
  assert.equal(failed[0]!.text, "starting");
});

Deno.test("Agent.run() on Anthropic: malformed tool JSON is answered with a tool error", async () => {
  await using h = await harness();
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "bad", name: "edit", json: '{"path": "a.ts", "old_string": ' }],
      }),
    },
    { events: anthropic.reply({ text: "retrying differently" }) },
  );
  const result = await h.agent.run("edit", { signal: signal() });
  assert.equal(result.status, "completed");
  const call = h.rows<{ status: string; args: string }>("SELECT status, args FROM tool_calls")[0]!;
  assert.equal(call.status, "error");
  assert.equal(call.args, '{"path": "a.ts", "old_string": ');
  const sent = h.server.requests[1]!.body as {
    messages: { content: { type: string; is_error?: boolean }[] }[];
  };
  const last = sent.messages.at(-1)!.content[0]!;
  assert.deepEqual([last.type, last.is_error], ["tool_result", true]);
});
