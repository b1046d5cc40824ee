// Benchmark for the agent loop (issue: agent loop). Prints one JSON object.
//   deno run -A scripts/bench_loop.ts [--messages 1000] [--runs 200]
// Loop overhead per turn = one agent run with a one-turn text reply, through the real
// client (request building, SSE parsing), storage and budgets; only the network is
// replaced by an in-process fetch that answers at once.
import { parseArgs } from "node:util";
import { noPeers } from "../core/peers/peers.ts";
import { leasedWorkspace } from "../core/peers/workspace.ts";
import { WriteLease } from "../core/peers/write_lease.ts";
import { PermissionGate } from "../core/agent/permissions.ts";
import { systemClock } from "../core/clock.ts";
import { createClient, type ProviderConfig } from "../core/providers/config.ts";
import { AgentFactory } from "../core/service/agent_factory.ts";
import { LedgerStore } from "../core/storage/ledger.ts";
import { benchSession, progress, stats } from "./lib/bench_util.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    messages: { type: "string", default: "1000" },
    runs: { type: "string", default: "200" },
  },
});
const messages = Number(values.messages);
const runs = Number(values.runs);
const dir = await Deno.makeTempDir({ prefix: "bonsai-bench-loop-" });
try {
  const { db, runtime } = await benchSession(dir);
  progress(`building a ${messages}-message session ...`);
  for (let i = 0; i < messages; i += 2) {
    const text = `question ${i}: ${"lorem ipsum dolor sit amet ".repeat(6)}`;
    const seq = runtime.addMessage({ role: "user", text });
    runtime.addContext({ role: "user", content: [{ type: "text", text }] }, seq);
    const reply = `answer ${i}: ${"consectetur adipiscing elit ".repeat(8)}`;
    const seq2 = runtime.addMessage({ role: "assistant", text: reply });
    runtime.addContext({ role: "assistant", content: [{ type: "text", text: reply }] }, seq2);
  }
  runtime.flush();

  const sse = [
    `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_b","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":9000}}}\n\n`,
    `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`,
    ...Array.from(
      { length: 20 },
      (_, i) =>
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word${i} "}}\n\n`,
    ),
    `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`,
    `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":40}}\n\n`,
    `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
  ].join("");
  const fakeFetch: typeof fetch = () =>
    Promise.resolve(
      new Response(sse, {
        headers: { "content-type": "text/event-stream", "request-id": "req_b" },
      }),
    );
  const config: ProviderConfig = {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    reasoning: null,
    apiKey: "bench",
    baseUrl: "http://bench.invalid",
    source: "flag",
  };
  const factory = new AgentFactory({
    db,
    clock: systemClock,
    env: {},
    fetch: fakeFetch,
    random: Math.random,
    platform: "linux",
    client: (c) => createClient(c, { fetch: fakeFetch, clock: systemClock, random: Math.random }),
  });
  const agent = factory.agent(runtime, config, {
    workspace: leasedWorkspace(
      new WriteLease({
        db,
        clock: systemClock,
        projectId: runtime.session.projectId,
        sessionId: runtime.id,
      }),
    ),
    peers: noPeers,
    permissions: new PermissionGate({}),
    limits: { maxTurns: 50, sessionMaxCostUsd: 1_000_000 },
    saved: {},
    context: {},
  });
  const signal = new AbortController().signal;
  for (let i = 0; i < 10; i++) await agent.run("warm up", { signal });
  const turn: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const result = await agent.run(`prompt ${i}`, { signal });
    turn.push(performance.now() - t);
    if (result.status !== "completed") throw new Error(`run ${i} ended ${result.status}`);
  }

  const ledger = new LedgerStore(db);
  const entry = {
    sessionId: runtime.id,
    projectId: runtime.session.projectId,
    lane: "parent" as const,
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    attempt: 1,
    requestId: "req",
    responseId: "msg",
    inputTokens: 10,
    outputTokens: 40,
    cacheReadTokens: 9000,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    usageExact: true,
    outputChars: 160,
    costUsd: 0.0033,
    baselineCostUsd: 0.03,
    finishReason: "end_turn",
    error: null,
    latencyMs: 900,
    ttftMs: 300,
    prefixHash: "abcd",
    prefixRewrite: false,
    expectedCacheReadPct: 99,
    actualCacheReadPct: 99.8,
    createdAt: Date.now(),
  };
  const inserts: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    ledger.append([entry]);
    inserts.push(performance.now() - t);
  }
  const context = runtime.context.length;
  db.close();
  const turnStats = stats(turn);
  const insertStats = stats(inserts);
  console.log(JSON.stringify({
    bench: "loop",
    session_messages_at_start: messages,
    context_items_at_end: context,
    turn_overhead: turnStats,
    ledger_insert: insertStats,
    targets: { turn_overhead_ms: 5, ledger_insert_ms: 0.5 },
    targets_met: turnStats.p50_ms <= 5 && insertStats.p50_ms <= 0.5,
  }));
} finally {
  await Deno.remove(dir, { recursive: true });
}
