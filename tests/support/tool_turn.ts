// A tool-using turn that tests can interrupt at chosen points, in either protocol: the
// scripted model asks for one tool call, answers its result, and answers a later prompt.
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import type { LoopbackServer, ScriptedReply } from "./loopback_server.ts";
import { anthropic, openai } from "./sse_scripts.ts";

/** The protocols bonsai speaks. */
export type Protocol = "anthropic" | "openai";

/** What the last message of a request is. */
export type LastTurn =
  | { readonly kind: "prompt"; readonly text: string }
  | { readonly kind: "results"; readonly ids: string[] };

/** The last message of a request body, in either protocol's wire format. */
export function lastTurn(body: Record<string, unknown>): LastTurn {
  const messages = body.messages as Record<string, unknown>[];
  const last = messages.at(-1)!;
  if (last.role === "tool") {
    // OpenAI: the tool messages after the assistant's tool_calls.
    const ids: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) {
      ids.unshift(String(messages[i]!.tool_call_id));
    }
    return { kind: "results", ids };
  }
  const content = last.content;
  if (typeof content === "string") return { kind: "prompt", text: content };
  // Anthropic: a user message carries tool results, a prompt, or (merged) both.
  const blocks = content as Record<string, unknown>[];
  const text = blocks.filter((b) => b.type === "text").map((b) => String(b.text)).join("\n");
  if (text) return { kind: "prompt", text };
  const results = blocks.filter((b) => b.type === "tool_result");
  return { kind: "results", ids: results.map((b) => String(b.tool_use_id)) };
}

/** Every tool result a request carries, by call id (both protocols). */
export function toolResults(body: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of body.messages as Record<string, unknown>[]) {
    if (m.role === "tool") out.set(String(m.tool_call_id), String(m.content));
    if (m.role === "user" && Array.isArray(m.content)) {
      for (const b of m.content as Record<string, unknown>[]) {
        if (b.type === "tool_result") out.set(String(b.tool_use_id), String(b.content));
      }
    }
  }
  return out;
}

/** A reply in `protocol` with text and/or tool calls. */
export function reply(
  protocol: Protocol,
  options: { text?: string; calls?: { id: string; name: string; json: string }[] },
): string[] {
  return protocol === "anthropic" ? anthropic.reply(options) : openai.reply(options);
}

/** How the scripted model answers each kind of request. */
export interface TurnScript {
  /** The tool call asked for after the first prompt. */
  readonly call: { id: string; name: string; json: string };
  /** The answer to the tool's result (default: text "done"). */
  readonly afterResults?: ScriptedReply;
}

/**
 * Routes every request of `protocol`: the first prompt gets `script.call`; a request ending
 * in tool results gets `afterResults`; any later prompt gets "continued: <prompt>".
 */
export function scriptTurn(server: LoopbackServer, protocol: Protocol, script: TurnScript): void {
  server.route((route, body) => {
    if (route !== protocol) return null;
    const last = lastTurn(body);
    if (last.kind === "results") {
      return script.afterResults ?? { events: reply(protocol, { text: "done" }) };
    }
    if (last.text.includes("please run the tool")) {
      return { events: reply(protocol, { calls: [script.call] }) };
    }
    return { events: reply(protocol, { text: `continued: ${last.text}` }) };
  });
}

/** The provider environment for `protocol` against the loopback server. */
export function providerEnv(server: LoopbackServer, protocol: Protocol): Record<string, string> {
  return protocol === "anthropic"
    ? { ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000", ANTHROPIC_BASE_URL: server.url }
    : {
      BONSAI_PROVIDER: "openai",
      OPENAI_API_KEY: "sk-test-000000000000000000000000",
      OPENAI_BASE_URL: server.openaiUrl,
      BONSAI_MODEL: "gpt-4o",
    };
}

/** Rows of a query on the database a (possibly running) bonsai writes, read-only. */
export function query<T = Record<string, unknown>>(home: string, sql: string): T[] {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true, timeout: 5000 });
  try {
    return db.prepare(sql).all().map((r) => ({ ...r })) as T[];
  } finally {
    db.close();
  }
}

/** Waits until `check` holds (polling; a check that throws, say before the database exists, is "not yet"). */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const start = Date.now();
  const holds = () => {
    try {
      return check();
    } catch {
      return false;
    }
  };
  while (!holds()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Reads a child's stdout into a growing string. */
export function collect(stream: ReadableStream<Uint8Array>): { text: string; done: Promise<void> } {
  const out = { text: "", done: Promise.resolve() };
  const decoder = new TextDecoder();
  out.done = (async () => {
    for await (const chunk of stream) out.text += decoder.decode(chunk, { stream: true });
  })().catch(() => {});
  return out;
}
