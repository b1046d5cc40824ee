import { z } from "zod";
import type { Accumulator } from "./accumulator.ts";
import { retryableStatus, retryAfterMs, shouldRetryHeader } from "./retry.ts";
import type { SseEvent } from "./sse.ts";
import { checkOpenAIRequest } from "./openai_rules.ts";
import { bodyJson, WireCache } from "./wire_json.ts";
import { failure, ProtocolError, type ProviderAdapter } from "./stream_client.ts";
import type {
  ChatMessage,
  ModelRequest,
  ProviderFailure,
  RequestProblem,
  StreamEvent,
  Usage,
} from "./types.ts";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Error codes that mean money ran out: retrying cannot help. */
const SPEND_CODES = new Set([
  "insufficient_quota",
  "credit_balance_exhausted",
  "organization_spend_limit_exceeded",
  "project_spend_limit_exceeded",
  "organization_usage_limit_exceeded",
  "billing_hard_limit_reached",
]);

/**
 * OpenAI Chat Completions adapter; also speaks to compatible servers (Ollama, vLLM,
 * llama.cpp, LM Studio, OpenRouter) through `baseUrl`.
 */
export function openaiAdapter(
  options: { apiKey: string | null; baseUrl?: string },
): ProviderAdapter {
  const base = (options.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, "");
  const official = /^https:\/\/api\.openai\.com(\/|$)/.test(base);
  const cache: WireCache<WireMessage[]> = new WireCache();
  return {
    provider: "openai",
    build(request) {
      const { body, problem } = renderRequest(request, official, cache);
      return {
        url: `${base}/chat/completions`,
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body,
        problem,
      };
    },
    requestId: (headers) => headers.get("x-request-id") ?? headers.get("x-generation-id"),
    read: readStream,
    httpFailure,
  };
}

type WireMessage = Record<string, unknown>;

/**
 * The JSON body (local servers get `max_tokens`: Ollama reads nothing else) and the first rule
 * of the API it breaks, checked on the wire objects themselves.
 */
export function renderRequest(
  request: ModelRequest,
  official: boolean,
  cache: WireCache<WireMessage[]> = new WireCache(),
): { body: string; problem: RequestProblem | null } {
  const system = { role: "system", content: request.system };
  const wires: WireMessage[] = [system];
  const jsons = [JSON.stringify(system)];
  for (const m of request.messages) {
    const w = cache.get(m, (x) => {
      const wire = toWire(x);
      return { wire, json: wire.map((o) => JSON.stringify(o)).join(",") };
    });
    for (const o of w.wire) wires.push(o);
    jsons.push(w.json);
  }
  const body = bodyJson({
    model: request.model,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length
      ? {
        tools: request.tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.inputSchema },
        })),
      }
      : {}),
    ...(official
      ? { max_completion_tokens: request.maxOutputTokens }
      : { max_tokens: request.maxOutputTokens }),
    ...(request.reasoning && request.reasoning !== "off"
      ? { reasoning_effort: request.reasoning }
      : {}),
    ...(request.cacheKey ? { prompt_cache_key: request.cacheKey } : {}),
  }, jsons);
  return { body, problem: checkOpenAIRequest({ messages: wires }) };
}

/** One of our messages as one or more Chat Completions messages (tool results are role "tool"). */
function toWire(message: ChatMessage): WireMessage[] {
  if (message.role === "assistant") {
    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    const calls = message.content.flatMap((b) =>
      b.type === "tool_call"
        ? [{
          id: b.id,
          type: "function",
          function: {
            name: b.name,
            arguments: b.input === null ? b.rawInput : JSON.stringify(b.input),
          },
        }]
        : []
    );
    return [{
      role: "assistant",
      content: text || null,
      ...(calls.length ? { tool_calls: calls } : {}),
    }];
  }
  const out: WireMessage[] = [];
  for (const b of message.content) {
    if (b.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: b.toolCallId, content: b.content || "(no output)" });
    }
  }
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
  if (text) out.push({ role: "user", content: text });
  return out;
}

// --- stream ---------------------------------------------------------------------------

const UsageWire = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).passthrough().nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).passthrough()
    .nullish(),
}).passthrough();

const ToolCallDelta = z.object({
  index: z.number().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).passthrough()
    .nullish(),
}).passthrough();

const Chunk = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  choices: z.array(
    z.object({
      delta: z.object({
        content: z.string().nullish(),
        reasoning_content: z.string().nullish(),
        reasoning: z.string().nullish(),
        tool_calls: z.array(ToolCallDelta).nullish(),
      }).passthrough().nullish(),
      finish_reason: z.string().nullish(),
    }).passthrough(),
  ).nullish(),
  usage: UsageWire.nullish(),
  error: z.unknown().optional(),
}).passthrough();

async function* readStream(
  events: AsyncIterable<SseEvent>,
  acc: Accumulator,
  now: () => number,
): AsyncGenerator<StreamEvent> {
  // Block 0 is the text; reasoning and each tool call get their own slots after it.
  const TEXT = 0;
  const THINKING = 1;
  const toolSlots: { id: string; slot: number }[] = [];
  let nextSlot = 2;
  let started = false;
  for await (const sse of events) {
    if (sse.data.trim() === "[DONE]") {
      acc.complete = true;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(sse.data);
    } catch {
      throw new ProtocolError("a chunk was not JSON");
    }
    const parsed = Chunk.safeParse(json);
    if (!parsed.success) {
      throw new ProtocolError(`malformed chunk: ${parsed.error.issues[0]?.message}`);
    }
    const chunk = parsed.data;
    if (chunk.error !== undefined || sse.event === "error") {
      acc.failure = streamError(chunk.error ?? json);
      return;
    }
    if (chunk.id && !acc.responseId) acc.responseId = chunk.id;
    if (chunk.model) acc.model = chunk.model;
    if (chunk.usage) acc.usage = normalise(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta;
      if (d?.content) {
        if (!started) acc.start(TEXT, { type: "text", text: "" });
        started = true;
        acc.text(TEXT, d.content, now());
        yield { type: "text_delta", text: d.content };
      }
      const reasoning = d?.reasoning_content ?? d?.reasoning;
      if (reasoning) {
        if (!acc.at(THINKING)) acc.start(THINKING, { type: "thinking", text: "", signature: "" });
        acc.text(THINKING, reasoning, now());
        yield { type: "thinking_delta", text: reasoning };
      }
      for (const [position, call] of (d?.tool_calls ?? []).entries()) {
        // Servers that omit `index` (older Ollama) send each call whole: use its position,
        // or a new slot when it brings a new id.
        const key = call.index ?? position;
        let entry = toolSlots[key];
        if (!entry || (call.id && entry.id !== call.id && call.index == null)) {
          const id = call.id || `call_${nextSlot}`;
          entry = { id, slot: nextSlot++ };
          toolSlots[key] = entry;
          acc.start(entry.slot, {
            type: "tool_call",
            id,
            name: call.function?.name ?? "",
            json: "",
          });
          yield { type: "tool_call_start", id, name: call.function?.name ?? "" };
        }
        const block = acc.at(entry.slot);
        if (block?.type === "tool_call" && !block.name && call.function?.name) {
          block.name = call.function.name;
        }
        const piece = call.function?.arguments;
        if (piece) {
          acc.toolJson(entry.slot, piece, now());
          yield { type: "tool_call_delta", id: entry.id, partialJson: piece };
        }
      }
      if (choice.finish_reason) acc.stopReason = choice.finish_reason;
    }
  }
  // Some servers end without [DONE]; a finish reason means the answer is whole.
  if (acc.stopReason !== null) acc.complete = true;
}

/** Chat Completions usage as bonsai counts it: prompt tokens include cached ones. */
export function normalise(u: z.infer<typeof UsageWire>): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (u.prompt_tokens ?? 0) - cached),
    outputTokens: u.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
    exact: u.prompt_tokens !== null && u.prompt_tokens !== undefined,
  };
}

function streamError(error: unknown): ProviderFailure {
  const e = (error ?? {}) as { message?: unknown; type?: unknown; code?: unknown };
  const message = typeof e.message === "string" ? e.message : JSON.stringify(error).slice(0, 300);
  const code = typeof e.code === "string" ? e.code : typeof e.type === "string" ? e.type : null;
  const spendLimit = code !== null && SPEND_CODES.has(code);
  return failure({
    kind: "stream",
    message: `stream error${code ? ` ${code}` : ""}: ${message}`,
    errorType: code,
    retryable: !spendLimit &&
      (code === null || /server|overload|rate|timeout|unavailable/i.test(code)),
    rateLimited: code !== null && /rate/i.test(code),
    spendLimit,
  });
}

const ErrorBody = z.object({
  error: z.object({
    message: z.string().nullish(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }).passthrough(),
}).passthrough();

function httpFailure(status: number, headers: Headers, body: string, now: number): ProviderFailure {
  let message = body.slice(0, 500) || `HTTP ${status}`;
  let type: string | null = null;
  let code: string | null = null;
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(body));
    if (parsed.success) {
      message = parsed.data.error.message ?? message;
      type = parsed.data.error.type ?? null;
      code = parsed.data.error.code === null || parsed.data.error.code === undefined
        ? null
        : String(parsed.data.error.code);
    }
  } catch {
    // not JSON: keep the raw text
  }
  const spendLimit = SPEND_CODES.has(type ?? "") || SPEND_CODES.has(code ?? "") || status === 402;
  const header = shouldRetryHeader(headers);
  const retryable = !spendLimit && (header ?? retryableStatus(status));
  const hint = status === 401 ? " (check OPENAI_API_KEY)" : "";
  return failure({
    kind: "http",
    message: `OpenAI-compatible API error ${status}${
      code ? ` ${code}` : type ? ` ${type}` : ""
    }: ${message}${hint}`,
    status,
    errorType: code ?? type,
    retryable,
    rateLimited: status === 429 && !spendLimit,
    spendLimit,
    retryAfterMs: retryAfterMs(headers, now),
  });
}
