import { z } from "zod";
import type { Accumulator } from "./accumulator.ts";
import { retryableStatus, retryAfterMs, shouldRetryHeader } from "./retry.ts";
import type { SseEvent } from "./sse.ts";
import { checkAnthropicRequest } from "./anthropic_rules.ts";
import { bodyJson, type Wire, WireCache } from "./wire_json.ts";
import { failure, ProtocolError, type ProviderAdapter } from "./stream_client.ts";
import type {
  ChatMessage,
  ContentBlock,
  ModelRequest,
  ProviderFailure,
  RequestProblem,
  StreamEvent,
  Usage,
} from "./types.ts";

/** The Messages API version this client speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

const THINKING_BUDGET = { low: 2048, medium: 8192, high: 24576 } as const;
const EPHEMERAL = { type: "ephemeral" } as const;

/** Anthropic Messages API adapter (streaming, prompt caching on the stable prefix). */
export function anthropicAdapter(options: { apiKey: string; baseUrl?: string }): ProviderAdapter {
  const base = (options.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/+$/, "");
  const cache: WireCache<WireMessage> = new WireCache();
  return {
    provider: "anthropic",
    build(request) {
      const { body, problem } = renderRequest(request, cache);
      return {
        url: `${base}/v1/messages`,
        headers: {
          "x-api-key": options.apiKey,
          "anthropic-version": ANTHROPIC_VERSION,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body,
        problem,
      };
    },
    requestId: (headers) => headers.get("request-id") ?? headers.get("x-request-id"),
    read: readStream,
    httpFailure,
  };
}

type WireMessage = Record<string, unknown>;

/**
 * The JSON body (cache breakpoints on the last tool, the system prompt and the last two user
 * turns) and the first rule of the API it breaks, checked on the wire objects themselves.
 */
export function renderRequest(
  request: ModelRequest,
  cache: WireCache<WireMessage> = new WireCache(),
): { body: string; problem: RequestProblem | null } {
  const tools = request.tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema,
    ...(i === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
  const userTurns = request.messages.flatMap((m, i) => (m.role === "user" ? [i] : [])).slice(-2);
  // Messages carrying a breakpoint are rendered fresh; the rest come from the cache.
  const wires: WireMessage[] = [];
  const jsons: string[] = [];
  for (let i = 0; i < request.messages.length; i++) {
    const m = request.messages[i]!;
    const w = userTurns.includes(i) ? rendered(toWire(m, true)) : cache.get(m, plainWire);
    wires.push(w.wire);
    jsons.push(w.json);
  }
  // The API refuses a blank system block; a blank prompt is no prompt.
  const system = HAS_TEXT.test(request.system)
    ? [{ type: "text", text: request.system, cache_control: EPHEMERAL }]
    : undefined;
  const thinking = request.reasoning && request.reasoning !== "off"
    ? THINKING_BUDGET[request.reasoning]
    : null;
  const body = bodyJson({
    model: request.model,
    max_tokens: thinking
      ? Math.max(request.maxOutputTokens, thinking + 4096)
      : request.maxOutputTokens,
    stream: true,
    ...(system ? { system } : {}),
    ...(tools.length ? { tools } : {}),
    ...(thinking ? { thinking: { type: "enabled", budget_tokens: thinking } } : {}),
  }, jsons);
  return { body, problem: checkAnthropicRequest({ system, messages: wires }) };
}

const HAS_TEXT = /\S/;

const rendered = (wire: WireMessage): Wire<WireMessage> => ({ wire, json: JSON.stringify(wire) });
const plainWire = (m: ChatMessage) => rendered(toWire(m, false));

function toWire(message: ChatMessage, breakpoint: boolean): WireMessage {
  const blocks = message.content.map(blockToWire).filter((b) => b !== null);
  // Tool results must open a user message, text after them (the API refuses text first).
  if (message.role === "user") {
    blocks.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: "(empty)" });
  if (breakpoint) {
    // Thinking blocks cannot carry cache_control; mark the last block that can.
    for (let i = blocks.length - 1; i >= 0; i--) {
      const t = blocks[i]!.type;
      if (t !== "thinking" && t !== "redacted_thinking") {
        blocks[i] = { ...blocks[i]!, cache_control: EPHEMERAL };
        break;
      }
    }
  }
  return { role: message.role, content: blocks };
}

function blockToWire(b: ContentBlock): Record<string, unknown> | null {
  switch (b.type) {
    case "text":
      // Empty and whitespace-only text blocks are refused by the API; they carry nothing.
      return HAS_TEXT.test(b.text) ? { type: "text", text: b.text } : null;
    case "thinking":
      // Only signed thinking can be sent back; unsigned (partial) thinking is dropped.
      return b.signature ? { type: "thinking", thinking: b.text, signature: b.signature } : null;
    case "redacted_thinking":
      return { type: "redacted_thinking", data: b.data };
    case "tool_call":
      return {
        type: "tool_use",
        id: b.id,
        name: b.name,
        input: b.input !== null && typeof b.input === "object" && !Array.isArray(b.input)
          ? b.input
          : {},
      };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: b.toolCallId,
        content: HAS_TEXT.test(b.content) ? b.content : "(no output)",
        is_error: b.isError,
      };
  }
}

// --- stream ---------------------------------------------------------------------------

const UsageWire = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation: z.object({
    ephemeral_5m_input_tokens: z.number().nullish(),
    ephemeral_1h_input_tokens: z.number().nullish(),
  }).nullish(),
  output_tokens_details: z.object({ thinking_tokens: z.number().nullish() }).nullish(),
}).passthrough();
type UsageWire = z.infer<typeof UsageWire>;

const Event = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message_start"),
    message: z.object({
      id: z.string().nullish(),
      model: z.string().nullish(),
      usage: UsageWire.nullish(),
    }).passthrough(),
  }).passthrough(),
  z.object({
    type: z.literal("content_block_start"),
    index: z.number(),
    content_block: z.object({
      type: z.string(),
      id: z.string().nullish(),
      name: z.string().nullish(),
      text: z.string().nullish(),
      thinking: z.string().nullish(),
      signature: z.string().nullish(),
      data: z.string().nullish(),
    }).passthrough(),
  }).passthrough(),
  z.object({
    type: z.literal("content_block_delta"),
    index: z.number(),
    delta: z.object({
      type: z.string(),
      text: z.string().nullish(),
      partial_json: z.string().nullish(),
      thinking: z.string().nullish(),
      signature: z.string().nullish(),
    }).passthrough(),
  }).passthrough(),
  z.object({ type: z.literal("content_block_stop"), index: z.number() }).passthrough(),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish() }).passthrough().nullish(),
    usage: UsageWire.nullish(),
  }).passthrough(),
  z.object({ type: z.literal("message_stop") }).passthrough(),
  z.object({ type: z.literal("ping") }).passthrough(),
  z.object({
    type: z.literal("error"),
    error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).passthrough(),
  }).passthrough(),
]);

const KNOWN = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
]);

async function* readStream(
  events: AsyncIterable<SseEvent>,
  acc: Accumulator,
  now: () => number,
): AsyncGenerator<StreamEvent> {
  let wire: UsageWire = {};
  for await (const sse of events) {
    let json: unknown;
    try {
      json = JSON.parse(sse.data);
    } catch {
      throw new ProtocolError(`event '${sse.event}' carried data that is not JSON`);
    }
    const type = (json as { type?: unknown })?.type;
    if (typeof type !== "string" || !KNOWN.has(type)) continue; // newer event types are ignored
    const parsed = Event.safeParse(json);
    if (!parsed.success) {
      throw new ProtocolError(`malformed '${type}' event: ${parsed.error.issues[0]?.message}`);
    }
    const e = parsed.data;
    switch (e.type) {
      case "message_start":
        acc.responseId = e.message.id ?? null;
        if (e.message.model) acc.model = e.message.model;
        wire = { ...(e.message.usage ?? {}) };
        acc.usage = normalise(wire);
        break;
      case "content_block_start": {
        const b = e.content_block;
        if (b.type === "tool_use" || b.type === "server_tool_use") {
          acc.start(e.index, {
            type: "tool_call",
            id: b.id ?? `toolu_${e.index}`,
            name: b.name ?? "",
            json: "",
          });
          yield { type: "tool_call_start", id: b.id ?? `toolu_${e.index}`, name: b.name ?? "" };
        } else if (b.type === "thinking") {
          acc.start(e.index, { type: "thinking", text: "", signature: b.signature ?? "" });
          if (b.thinking) {
            acc.text(e.index, b.thinking, now());
            yield { type: "thinking_delta", text: b.thinking };
          }
        } else if (b.type === "redacted_thinking") {
          acc.start(e.index, { type: "redacted_thinking", data: b.data ?? "" });
        } else {
          acc.start(e.index, { type: "text", text: "" });
          if (b.text) {
            acc.text(e.index, b.text, now());
            yield { type: "text_delta", text: b.text };
          }
        }
        break;
      }
      case "content_block_delta": {
        const d = e.delta;
        if (d.type === "text_delta" && d.text) {
          acc.text(e.index, d.text, now());
          yield { type: "text_delta", text: d.text };
        } else if (d.type === "input_json_delta" && typeof d.partial_json === "string") {
          acc.toolJson(e.index, d.partial_json, now());
          const block = acc.at(e.index);
          if (block?.type === "tool_call" && d.partial_json) {
            yield { type: "tool_call_delta", id: block.id, partialJson: d.partial_json };
          }
        } else if (d.type === "thinking_delta" && d.thinking) {
          acc.text(e.index, d.thinking, now());
          yield { type: "thinking_delta", text: d.thinking };
        } else if (d.type === "signature_delta" && d.signature) {
          acc.signature(e.index, d.signature);
        }
        break;
      }
      case "content_block_stop":
        break;
      case "message_delta":
        if (e.delta?.stop_reason) acc.stopReason = e.delta.stop_reason;
        if (e.usage) {
          // Cumulative: later values replace earlier ones; absent fields keep message_start's.
          for (const [k, v] of Object.entries(e.usage)) {
            if (v !== null && v !== undefined) (wire as Record<string, unknown>)[k] = v;
          }
          acc.usage = normalise(wire);
        }
        break;
      case "message_stop":
        acc.complete = true;
        return;
      case "ping":
        break;
      case "error":
        acc.failure = streamFailure(e.error.type ?? "api_error", e.error.message ?? "error event");
        return;
    }
  }
}

/** Anthropic usage as bonsai counts it: `input_tokens` already excludes cache reads and writes. */
export function normalise(u: UsageWire): Usage {
  const write = u.cache_creation_input_tokens ?? 0;
  const w5 = u.cache_creation?.ephemeral_5m_input_tokens;
  const w1 = u.cache_creation?.ephemeral_1h_input_tokens;
  const split = w5 !== null && w5 !== undefined || w1 !== null && w1 !== undefined;
  return {
    inputTokens: u.input_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    cacheReadTokens: u.cache_read_input_tokens ?? 0,
    cacheWrite5mTokens: split ? (w5 ?? 0) : write,
    cacheWrite1hTokens: split ? (w1 ?? 0) : 0,
    reasoningTokens: u.output_tokens_details?.thinking_tokens ?? 0,
    exact: u.input_tokens !== undefined && u.input_tokens !== null,
  };
}

const RETRYABLE_STREAM_ERRORS = new Set([
  "overloaded_error",
  "api_error",
  "rate_limit_error",
  "timeout_error",
]);

function streamFailure(type: string, message: string): ProviderFailure {
  return failure({
    kind: "stream",
    message: `${type}: ${message}`,
    errorType: type,
    retryable: RETRYABLE_STREAM_ERRORS.has(type),
    rateLimited: type === "rate_limit_error",
  });
}

const ErrorBody = z.object({
  error: z.object({
    type: z.string().nullish(),
    message: z.string().nullish(),
    details: z.object({ error_code: z.string().nullish() }).passthrough().nullish(),
  }).passthrough(),
}).passthrough();

function httpFailure(status: number, headers: Headers, body: string, now: number): ProviderFailure {
  let type: string | null = null;
  let message = body.slice(0, 500) || `HTTP ${status}`;
  let code: string | null = null;
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(body));
    if (parsed.success) {
      type = parsed.data.error.type ?? null;
      message = parsed.data.error.message ?? message;
      code = parsed.data.error.details?.error_code ?? null;
    }
  } catch {
    // not JSON (a proxy's HTML page): keep the raw text
  }
  const spendLimit = code === "enforced_spend_limit_reached" ||
    /usage limits?|spend limit/i.test(message);
  const header = shouldRetryHeader(headers);
  const retryable = !spendLimit && (header ?? retryableStatus(status));
  const hint = status === 401 ? " (check ANTHROPIC_API_KEY)" : "";
  return failure({
    kind: "http",
    message: `Anthropic API error ${status}${type ? ` ${type}` : ""}: ${message}${hint}`,
    status,
    errorType: type,
    retryable,
    rateLimited: status === 429 && !spendLimit,
    spendLimit,
    retryAfterMs: retryAfterMs(headers, now),
  });
}
