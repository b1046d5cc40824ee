import type { ChatMessage, ContentBlock } from "../providers/types.ts";

type ToolResultBlock = Extract<ContentBlock, { type: "tool_result" }>;

/** What the model is told for a call whose result was never recorded (a session from before Z6). */
export const UNRECORDED_RESULT =
  "No result was recorded for this tool call (the session was interrupted while it ran), so its outcome is unknown. Check the current state before relying on it.";

/**
 * Z6: the messages in a shape both APIs accept, whatever the stored history holds. Every
 * tool call of an assistant message is answered by a tool result at the start of the next
 * message, which is a user message; results that answer no call of the message before are
 * dropped, and results come before text. Sessions recorded by this version should never
 * need it (every path that ends a turn answers its calls, and resume answers the ones a
 * crash left open); it keeps older, broken histories usable. Unchanged messages are returned as they
 * are, so serialised forms stay cached.
 */
export function pairToolResults(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let open: string[] = []; // call ids of the previous assistant message
  for (const m of messages) {
    if (m.role === "assistant") {
      if (open.length > 0) out.push(answers(open, []));
      out.push(m);
      open = callIds(m);
      continue;
    }
    const fixed = pairUserMessage(m, open);
    if (fixed !== null) out.push(fixed);
    open = [];
  }
  if (open.length > 0) out.push(answers(open, []));
  return out;
}

function callIds(m: ChatMessage): string[] {
  return m.content.flatMap((b) => (b.type === "tool_call" ? [b.id] : []));
}

/** The user message answering exactly `open`, or null when nothing of it is left. */
function pairUserMessage(m: ChatMessage, open: readonly string[]): ChatMessage | null {
  const results = m.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
  const others = m.content.filter((b) => b.type !== "tool_result");
  const wanted = new Set(open);
  const kept = results.filter((r) => wanted.delete(r.toolCallId));
  const inOrder = m.content.slice(0, kept.length).every((b) => b.type === "tool_result");
  if (wanted.size === 0 && kept.length === results.length && inOrder) return m;
  const missing = open.filter((id) => wanted.has(id));
  if (kept.length === 0 && missing.length === 0 && others.length === 0) return null;
  return answers(missing, [...kept, ...others]);
}

function answers(ids: readonly string[], rest: readonly ContentBlock[]): ChatMessage {
  const made: ContentBlock[] = ids.map((id) => ({
    type: "tool_result",
    toolCallId: id,
    content: UNRECORDED_RESULT,
    isError: true,
  }));
  const results = rest.filter((b) => b.type === "tool_result");
  const others = rest.filter((b) => b.type !== "tool_result");
  return { role: "user", content: [...results, ...made, ...others] };
}
