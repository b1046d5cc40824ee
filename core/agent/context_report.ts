import type { ChatMessage, ToolSpec } from "../providers/types.ts";
import { estimateTextTokens } from "../session/context_codec.ts";

/** Where the context window goes (U3 `/ctx`), in estimated tokens. */
export interface ContextReport {
  readonly window: number;
  readonly parts: readonly { readonly name: string; readonly tokens: number }[];
  readonly total: number;
  /** Messages summarised away so far (still stored and searchable). */
  readonly summarisedItems: number;
  readonly compactAt: number;
}

/** Splits a request-to-be into system prompt, tool schemas, messages by role, tool results and summaries. */
export function contextReport(input: {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly ChatMessage[];
  window: number;
  compactAt: number;
  summarisedItems: number;
}): ContextReport {
  const parts = new Map<string, number>([
    ["system prompt", estimateTextTokens(input.system)],
    ["tool schemas", estimateTextTokens(JSON.stringify(input.tools))],
    ["summary of older turns", 0],
    ["user messages", 0],
    ["assistant messages", 0],
    ["thinking", 0],
    ["tool calls", 0],
    ["tool results", 0],
  ]);
  const add = (k: string, n: number) => parts.set(k, (parts.get(k) ?? 0) + n);
  input.messages.forEach((m, i) => {
    for (const b of m.content) {
      if (b.type === "text") {
        const summary = i === 0 && input.summarisedItems > 0 && m.role === "user";
        add(
          summary
            ? "summary of older turns"
            : m.role === "user"
            ? "user messages"
            : "assistant messages",
          estimateTextTokens(b.text),
        );
      } else if (b.type === "thinking") add("thinking", estimateTextTokens(b.text));
      else if (b.type === "redacted_thinking") add("thinking", Math.ceil(b.data.length / 4));
      else if (b.type === "tool_call") add("tool calls", estimateTextTokens(b.rawInput) + 12);
      else add("tool results", estimateTextTokens(b.content) + 8);
    }
  });
  const list = [...parts].map(([name, tokens]) => ({ name, tokens }));
  return {
    window: input.window,
    parts: list,
    total: list.reduce((a, p) => a + p.tokens, 0),
    summarisedItems: input.summarisedItems,
    compactAt: input.compactAt,
  };
}
