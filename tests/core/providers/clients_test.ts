// deno-lint-ignore-file no-explicit-any -- assertions walk the request JSON the client sent
import assert from "node:assert/strict";
import { createClient, type ProviderConfig } from "../../../core/providers/config.ts";
import type { ModelClient, ModelRequest, StreamEvent } from "../../../core/providers/types.ts";
import { LoopbackServer } from "../../support/loopback_server.ts";
import { anthropic, openai } from "../../support/sse_scripts.ts";

type Provider = "anthropic" | "openai";

function client(server: LoopbackServer, provider: Provider, sleeps: number[] = []): ModelClient {
  const config: ProviderConfig = {
    provider,
    model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o",
    reasoning: null,
    apiKey: "test-key-123456",
    baseUrl: provider === "anthropic" ? server.url : server.openaiUrl,
    source: "flag",
  };
  return createClient(config, {
    fetch,
    clock: { now: () => Date.now() },
    random: () => 0,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-sonnet-4-5",
    system: "You are a test.",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [{ name: "read", description: "Read", inputSchema: { type: "object", properties: {} } }],
    maxOutputTokens: 1000,
    reasoning: null,
    cacheKey: "bk_cache",
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const last = (events: StreamEvent[]) => events[events.length - 1]!;
const attempts = (events: StreamEvent[]) => events.filter((e) => e.type === "attempt");

Deno.test("Anthropic: plain text, headers, cache breakpoints and usage", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic({
    events: anthropic.reply({
      text: "Hello there, friend.",
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 50,
        cache_5m: 30,
        cache_1h: 20,
      },
    }),
    headers: { "request-id": "req_abc" },
  });
  const events = await collect(
    client(server, "anthropic").stream(request({
      messages: [
        { role: "user", content: [{ type: "text", text: "one" }] },
        { role: "assistant", content: [{ type: "text", text: "two" }] },
        { role: "user", content: [{ type: "text", text: "three" }] },
      ],
    })),
  );
  const done = last(events);
  assert.equal(done.type, "done");
  if (done.type !== "done") return;
  assert.deepEqual(done.message.content, [{ type: "text", text: "Hello there, friend." }]);
  assert.equal(done.message.stopReason, "end_turn");
  assert.deepEqual(done.record.usage, {
    inputTokens: 12,
    outputTokens: 7,
    cacheReadTokens: 100,
    cacheWrite5mTokens: 30,
    cacheWrite1hTokens: 20,
    reasoningTokens: 0,
    exact: true,
  });
  assert.equal(done.record.requestId, "req_abc");
  assert.equal(done.record.responseId, "msg_01Test");
  assert.equal(done.record.model, "claude-sonnet-4-5-20250929");
  assert.equal(done.record.outputChars, "Hello there, friend.".length);
  const text = events.filter((e) => e.type === "text_delta").map((e) =>
    (e as { text: string }).text
  ).join("");
  assert.equal(text, "Hello there, friend.");
  const req = server.requests[0]!;
  assert.equal(req.headers["x-api-key"], "test-key-123456");
  assert.equal(req.headers["anthropic-version"], "2023-06-01");
  const body = req.body as Record<string, any>;
  assert.equal(body.stream, true);
  assert.deepEqual(body.system[0].cache_control, { type: "ephemeral" });
  assert.deepEqual(body.tools[0].cache_control, { type: "ephemeral" });
  // Breakpoints on the last two user turns, not on the assistant turn.
  assert.deepEqual(body.messages[0].content[0].cache_control, { type: "ephemeral" });
  assert.equal(body.messages[1].content[0].cache_control, undefined);
  assert.deepEqual(body.messages[2].content[0].cache_control, { type: "ephemeral" });
});

Deno.test("Anthropic: tool arguments split across many chunks, two parallel calls, thinking", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic({
    events: anthropic.reply({
      thinking: "Let me look at both files.",
      text: "Reading.",
      calls: [
        {
          id: "toolu_1",
          name: "read",
          json: JSON.stringify({ path: "src/a very long/path/name.ts", offset: 10 }),
        },
        { id: "toolu_2", name: "read", json: JSON.stringify({ path: "b.ts" }) },
      ],
      split: 3,
    }),
  });
  const events = await collect(client(server, "anthropic").stream(request()));
  const done = last(events);
  assert.equal(done.type, "done");
  if (done.type !== "done") return;
  const calls = done.message.content.filter((b) => b.type === "tool_call");
  assert.deepEqual(calls.map((c) => c.type === "tool_call" && [c.id, c.name, c.input]), [
    ["toolu_1", "read", { path: "src/a very long/path/name.ts", offset: 10 }],
    ["toolu_2", "read", { path: "b.ts" }],
  ]);
  const thinking = done.message.content[0]!;
  assert.deepEqual(thinking, {
    type: "thinking",
    text: "Let me look at both files.",
    signature: "sig-abc",
  });
  assert.equal(done.message.stopReason, "tool_use");
  assert.ok(events.filter((e) => e.type === "tool_call_delta").length > 10);
});

Deno.test("Anthropic: malformed tool-argument JSON keeps the raw text and parses to null", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic({
    events: anthropic.reply({ calls: [{ id: "toolu_x", name: "read", json: '{"path": "a.ts",' }] }),
  });
  const done = last(await collect(client(server, "anthropic").stream(request())));
  assert.equal(done.type, "done");
  if (done.type !== "done") return;
  const call = done.message.content[0]!;
  assert.equal(call.type, "tool_call");
  if (call.type !== "tool_call") return;
  assert.equal(call.input, null);
  assert.equal(call.rawInput, '{"path": "a.ts",');
});

Deno.test("Anthropic: 429 with retry-after and 529 overloaded are retried; each attempt reported", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic(
    {
      status: 429,
      headers: { "retry-after": "2", "content-type": "application/json" },
      body: anthropic.errorBody("rate_limit_error", "slow down"),
    },
    { status: 529, body: anthropic.errorBody("overloaded_error", "Overloaded") },
    { events: anthropic.reply({ text: "finally" }) },
  );
  const sleeps: number[] = [];
  const events = await collect(client(server, "anthropic", sleeps).stream(request()));
  assert.equal(last(events).type, "done");
  const a = attempts(events);
  assert.equal(a.length, 3);
  assert.equal(a[0]!.type === "attempt" && a[0]!.record.failure?.status, 429);
  assert.equal(a[0]!.type === "attempt" && a[0]!.record.failure?.rateLimited, true);
  assert.equal(a[1]!.type === "attempt" && a[1]!.record.failure?.errorType, "overloaded_error");
  assert.deepEqual(sleeps, [2000, 1000], "retry-after honoured, then backoff");
  assert.equal(server.requests.length, 3);
});

Deno.test("Anthropic: a connection dropped mid-stream is retried; the partial is reported", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic(
    { events: anthropic.reply({ text: "partial answer that will break" }), dropAfter: 5 },
    { events: anthropic.reply({ text: "whole answer" }) },
  );
  const events = await collect(client(server, "anthropic").stream(request()));
  const a = attempts(events);
  assert.equal(a.length, 2);
  const first = a[0]!;
  assert.ok(first.type === "attempt" && first.record.failure?.kind === "network");
  assert.ok(first.type === "attempt" && first.partial.content.length === 1);
  assert.ok(first.type === "attempt" && first.record.usage.exact === false);
  const done = last(events);
  assert.ok(done.type === "done" && done.message.content[0]?.type === "text");
});

Deno.test("Anthropic: an error event mid-stream; invalid requests and spend limits are not retried", async () => {
  await using server = await LoopbackServer.start();
  const partial = anthropic.reply({ text: "starting to answer" });
  server.anthropic(
    { events: [...partial.slice(0, 4), anthropic.error("overloaded_error", "Overloaded")] },
    { events: anthropic.reply({ text: "ok now" }) },
    { status: 400, body: anthropic.errorBody("invalid_request_error", "prompt is too long") },
    {
      status: 429,
      body: JSON.stringify({
        type: "error",
        error: {
          type: "rate_limit_error",
          message: "spend cap",
          details: { error_code: "enforced_spend_limit_reached" },
        },
      }),
    },
  );
  const first = await collect(client(server, "anthropic").stream(request()));
  assert.equal(attempts(first).length, 2);
  assert.equal(last(first).type, "done");
  const bad = last(await collect(client(server, "anthropic").stream(request())));
  assert.ok(bad.type === "error" && bad.failure.status === 400 && !bad.failure.retryable);
  assert.match(bad.type === "error" ? bad.failure.message : "", /prompt is too long/);
  const spend = last(await collect(client(server, "anthropic").stream(request())));
  assert.ok(spend.type === "error" && spend.failure.spendLimit && !spend.failure.retryable);
  assert.equal(server.requests.length, 4);
});

Deno.test("Anthropic: cancellation ends the stream with an error carrying the partial", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic({
    events: anthropic.reply({ text: "this will hang after a while" }),
    hangAfter: 4,
  });
  const controller = new AbortController();
  const events: StreamEvent[] = [];
  for await (
    const e of client(server, "anthropic").stream(request({ signal: controller.signal }))
  ) {
    events.push(e);
    if (e.type === "text_delta") controller.abort();
  }
  const end = last(events);
  assert.ok(end.type === "error" && end.failure.kind === "cancelled");
  assert.ok(end.type === "error" && end.partial.content.length === 1);
});

Deno.test("OpenAI: text, usage with cached and reasoning tokens, request shape", async () => {
  await using server = await LoopbackServer.start();
  server.openai({
    events: openai.reply({
      text: "Hi from GPT",
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 50,
        cached_tokens: 800,
        reasoning_tokens: 20,
      },
      extra: { timings: { predicted_n: 3 } },
    }),
    headers: { "x-request-id": "req_oai" },
  });
  const events = await collect(client(server, "openai").stream(request({ model: "gpt-4o" })));
  const done = last(events);
  assert.ok(done.type === "done");
  if (done.type !== "done") return;
  assert.deepEqual(done.message.content, [{ type: "text", text: "Hi from GPT" }]);
  assert.deepEqual(done.record.usage, {
    inputTokens: 200,
    outputTokens: 50,
    cacheReadTokens: 800,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 20,
    exact: true,
  });
  assert.equal(done.record.requestId, "req_oai");
  const body = server.requests[0]!.body as Record<string, any>;
  assert.equal(server.requests[0]!.headers.authorization, "Bearer test-key-123456");
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal(body.prompt_cache_key, "bk_cache");
  assert.equal(body.messages[0].role, "system");
  assert.equal(body.tools[0].function.name, "read");
  assert.equal(body.max_tokens, 1000, "non-OpenAI base URLs get max_tokens");
});

Deno.test("OpenAI: tool calls by index across chunks, whole in one chunk, and without index", async (t) => {
  await using server = await LoopbackServer.start();
  const calls = [
    { id: "call_1", name: "read", json: '{"path":"a.ts"}' },
    { id: "call_2", name: "grep", json: '{"pattern":"TODO","path":"src"}' },
  ];
  for (const style of ["openai", "whole", "no-index"] as const) {
    await t.step(style, async () => {
      server.openai({ events: openai.reply({ calls, style, split: 3 }) });
      const done = last(
        await collect(client(server, "openai").stream(request({ model: "gpt-4o" }))),
      );
      assert.ok(done.type === "done");
      if (done.type !== "done") return;
      assert.deepEqual(
        done.message.content.map((b) => b.type === "tool_call" && [b.id, b.name, b.input]),
        [["call_1", "read", { path: "a.ts" }], ["call_2", "grep", {
          pattern: "TODO",
          path: "src",
        }]],
      );
      assert.equal(done.message.stopReason, "tool_calls");
    });
  }
});

Deno.test("OpenAI: reasoning_content, the last non-null usage, malformed arguments, tool history shape", async () => {
  await using server = await LoopbackServer.start();
  server.openai({
    events: openai.reply({
      reasoning: "thinking...",
      calls: [{ id: "c9", name: "read", json: "{not json" }],
    }),
  });
  const done = last(
    await collect(
      client(server, "openai").stream(request({
        model: "gpt-4o",
        messages: [
          { role: "user", content: [{ type: "text", text: "go" }] },
          {
            role: "assistant",
            content: [{
              type: "tool_call",
              id: "c1",
              name: "read",
              input: { path: "x" },
              rawInput: '{"path":"x"}',
            }],
          },
          {
            role: "user",
            content: [{
              type: "tool_result",
              toolCallId: "c1",
              content: "file body",
              isError: false,
            }],
          },
        ],
      })),
    ),
  );
  assert.ok(done.type === "done");
  if (done.type !== "done") return;
  assert.deepEqual(done.message.content[0], { type: "thinking", text: "thinking..." });
  const call = done.message.content[1]!;
  assert.ok(call.type === "tool_call" && call.input === null && call.rawInput === "{not json");
  const sent = (server.requests[0]!.body as Record<string, any>).messages;
  assert.deepEqual(sent.slice(1).map((m: Record<string, unknown>) => m.role), [
    "user",
    "assistant",
    "tool",
  ]);
  assert.equal(sent[2].tool_calls[0].function.arguments, '{"path":"x"}');
  assert.equal(sent[3].tool_call_id, "c1");
});

Deno.test("OpenAI: 429 retry-after-ms, dropped stream, error chunk; insufficient_quota is not retried", async () => {
  await using server = await LoopbackServer.start();
  const full = openai.reply({ text: "a fairly long answer to be cut" });
  server.openai(
    {
      status: 429,
      headers: { "retry-after-ms": "1500" },
      body: openai.errorBody("Rate limit reached", "requests", "rate_limit_exceeded"),
    },
    { events: full, dropAfter: 3 },
    { events: [...full.slice(0, 2), openai.error("The server had an error")] },
    { events: openai.reply({ text: "done" }) },
    {
      status: 429,
      body: openai.errorBody(
        "You exceeded your current quota",
        "insufficient_quota",
        "insufficient_quota",
      ),
    },
  );
  const sleeps: number[] = [];
  const events = await collect(
    client(server, "openai", sleeps).stream(request({ model: "gpt-4o" })),
  );
  assert.equal(attempts(events).length, 4);
  assert.equal(last(events).type, "done");
  assert.equal(sleeps[0], 1500);
  const quota = last(
    await collect(client(server, "openai", sleeps).stream(request({ model: "gpt-4o" }))),
  );
  assert.ok(quota.type === "error" && quota.failure.spendLimit && !quota.failure.retryable);
});

Deno.test("retries give up after the policy's limit with the last failure", async () => {
  await using server = await LoopbackServer.start();
  for (let i = 0; i < 7; i++) server.anthropic({ status: 503, body: "upstream unavailable" });
  const events = await collect(client(server, "anthropic").stream(request()));
  assert.equal(attempts(events).length, 7);
  const end = last(events);
  assert.ok(end.type === "error" && end.failure.status === 503);
  assert.equal(server.pending, 0);
});

Deno.test("x-should-retry: false stops a retry the status would allow", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic({
    status: 500,
    headers: { "x-should-retry": "false" },
    body: anthropic.errorBody("api_error", "boom"),
  });
  const end = last(await collect(client(server, "anthropic").stream(request())));
  assert.ok(end.type === "error" && !end.failure.retryable);
  assert.equal(server.requests.length, 1);
});

Deno.test("a stream error that repeats identically on the retry ends the call; a different one is retried", async (t) => {
  // llama.cpp's answer when its tool-call parser fails: deterministic for a given prompt.
  const parserError = `data: ${
    JSON.stringify({
      error: {
        code: 500,
        message: "Failed to parse input at pos 12: <tool_call>{",
        type: "server_error",
      },
    })
  }\n\n`;
  const partial = openai.reply({ text: "let me look" }).slice(0, 2);
  await t.step("the same error twice: two attempts, not retried further", async () => {
    await using server = await LoopbackServer.start();
    server.openai(
      { events: [...partial, parserError] },
      { events: [...partial, parserError] },
      { events: openai.reply({ text: "never asked for" }) },
    );
    const events = await collect(client(server, "openai").stream(request({ model: "gpt-4o" })));
    assert.equal(attempts(events).length, 2);
    const end = last(events);
    assert.ok(end.type === "error" && end.failure.kind === "stream" && !end.failure.retryable);
    assert.match(end.type === "error" ? end.failure.message : "", /Failed to parse input/);
    assert.equal(server.pending, 1, "the third reply was never asked for");
  });
  await t.step("a different error the second time is retried", async () => {
    await using server = await LoopbackServer.start();
    server.openai(
      { events: [...partial, parserError] },
      { events: [...partial, openai.error("The server had an error")] },
      { events: openai.reply({ text: "fine now" }) },
    );
    const events = await collect(client(server, "openai").stream(request({ model: "gpt-4o" })));
    assert.equal(attempts(events).length, 3);
    assert.equal(last(events).type, "done");
  });
});
