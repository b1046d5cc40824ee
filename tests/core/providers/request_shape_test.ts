// deno-lint-ignore-file no-explicit-any -- assertions walk the request JSON the client sent
import assert from "node:assert/strict";
import { createClient, type ProviderConfig } from "../../../core/providers/config.ts";
import type {
  ChatMessage,
  ModelClient,
  ModelRequest,
  StreamEvent,
} from "../../../core/providers/types.ts";
import { LoopbackServer } from "../../support/loopback_server.ts";
import { anthropic, openai } from "../../support/sse_scripts.ts";

type Provider = "anthropic" | "openai";

function client(server: LoopbackServer, provider: Provider): ModelClient {
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
    sleep: () => Promise.resolve(),
  });
}

function request(messages: ChatMessage[], overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "m",
    system: "You are a test.",
    messages,
    tools: [{ name: "read", description: "Read", inputSchema: { type: "object", properties: {} } }],
    maxOutputTokens: 1000,
    reasoning: null,
    cacheKey: null,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** A session killed during a tool call, then resumed with a new prompt. */
const UNANSWERED: ChatMessage[] = [
  { role: "user", content: [{ type: "text", text: "read a.ts" }] },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Reading." },
      { type: "tool_call", id: "toolu_01A", name: "read", input: { path: "a.ts" }, rawInput: "" },
    ],
  },
  { role: "user", content: [{ type: "text", text: "are you there?" }] },
];

Deno.test("clients refuse to send a request the API would refuse: a non-retryable failure, never an exception", async (t) => {
  for (const provider of ["anthropic", "openai"] as const) {
    await t.step(provider, async () => {
      await using server = await LoopbackServer.start();
      server.anthropic({ events: anthropic.reply({ text: "unused" }) });
      server.openai({ events: openai.reply({ text: "unused" }) });
      const events = await collect(client(server, provider).stream(request(UNANSWERED)));
      assert.deepEqual(events.map((e) => e.type), ["attempt", "error"]);
      const end = events[1]!;
      assert.ok(end.type === "error");
      if (end.type !== "error") return;
      assert.equal(end.failure.kind, "request");
      assert.equal(end.failure.retryable, false);
      assert.equal(end.failure.status, null);
      assert.deepEqual(end.record.usage.inputTokens, 0);
      assert.equal(end.record.usage.exact, true, "nothing was billed");
      const expected = provider === "anthropic"
        ? 'Bonsai built a request the Anthropic Messages API would refuse, so it was not sent: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. Each `tool_use` block must have a corresponding `tool_result` block in the next message."'
        : "Bonsai built a request the OpenAI Chat Completions API would refuse, so it was not sent: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: toolu_01A\" (param 'messages.[3].role')";
      assert.equal(end.failure.message, expected);
      assert.equal(server.requests.length, 0, "nothing was sent");
    });
  }
});

Deno.test("the loopback server answers a refused shape with the API's own 400, before any scripted reply", async (t) => {
  await t.step("Anthropic", async () => {
    await using server = await LoopbackServer.start();
    server.anthropic({ events: anthropic.reply({ text: "unused" }) });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({
        model: "claude-sonnet-4-5",
        max_tokens: 10,
        messages: [{ role: "user", content: [{ type: "text", text: " " }] }],
      }),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.match(body.request_id, /^req_011C[A-Za-z0-9]{20}$/);
    assert.deepEqual(body, {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "messages: text content blocks must contain non-whitespace text",
      },
      request_id: body.request_id,
    });
    assert.equal(res.headers.get("request-id"), body.request_id);
    assert.equal(res.headers.get("x-should-retry"), "false");
    assert.equal(server.requests.length, 1, "the request is still recorded");
    assert.equal(server.pending, 1, "the scripted reply is left for the next request");
  });
  await t.step("OpenAI", async () => {
    await using server = await LoopbackServer.start();
    const res = await fetch(`${server.openaiUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }, {
          role: "tool",
          tool_call_id: "call_1",
          content: "x",
        }],
      }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      error: {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        type: "invalid_request_error",
        param: "messages.[1].role",
        code: null,
      },
    });
    assert.match(res.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/);
    assert.equal(server.requests.length, 1);
  });
});

Deno.test("the Anthropic adapter never sends blank text, text before tool results, or a blank system prompt", async () => {
  await using server = await LoopbackServer.start();
  server.anthropic({ events: anthropic.reply({ text: "ok" }) });
  const messages: ChatMessage[] = [
    { role: "user", content: [{ type: "text", text: "go" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "\n\n" },
        { type: "tool_call", id: "t1", name: "read", input: {}, rawInput: "{}" },
      ],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "(note from the session)" },
        { type: "tool_result", toolCallId: "t1", content: "\n", isError: false },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "  " }] },
    { role: "user", content: [{ type: "text", text: "thanks" }] },
  ];
  const events = await collect(
    client(server, "anthropic").stream(request(messages, { system: " \n" })),
  );
  assert.equal(events.at(-1)!.type, "done");
  const body = server.requests[0]!.body as Record<string, any>;
  assert.equal(body.system, undefined, "a blank system prompt is left out");
  const sent = body.messages.map((m: any) =>
    m.content.map((b: any) => [b.type, b.text ?? b.content ?? b.id])
  );
  assert.deepEqual(sent, [
    [["text", "go"]],
    [["tool_use", "t1"]],
    [["tool_result", "(no output)"], ["text", "(note from the session)"]],
    [["text", "(empty)"]],
    [["text", "thanks"]],
  ]);
});
