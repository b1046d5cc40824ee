// The request-shape rules of OpenAI Chat Completions that bonsai can break, with the HTTP 400
// `error.message` and `error.param` the API answers each with (type `invalid_request_error`,
// code null). Sources:
// - "An assistant message with 'tool_calls' must be followed by tool messages responding to each
//   'tool_call_id'. The following tool_call_ids did not have response messages: call_…",
//   param "messages.[57].role" (github.com/sdcb/chats/pull/132, router-for-me/CLIProxyAPI#2798):
//   the param names the first message that is not one of the answering `tool` messages.
// - "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with
//   'tool_calls'." (OpenAI's spelling), param "messages.[59].role" on the `tool` message itself
//   (sdcb/chats#132, miurla/morphic#136, smarter-sh/smarter#264).
// - "Invalid parameter: 'tool_call_id' of 'call_…' not found in 'tool_calls' of previous message."
//   for a `tool` message inside a tool block that answers an id the assistant did not call
//   (dapr/dapr-agents#145); its param is not shown in the reports, "messages.[N].tool_call_id" is our guess.
// Not confirmed from a real answer: the param when the conversation ends with unanswered calls
// (we name the assistant message), and "Missing required parameter: 'messages'." for a body without them.
import type { RequestProblem } from "./types.ts";

type Json = Record<string, unknown>;

/** The first rule `body` (a parsed Chat Completions request) breaks, or null when the API would accept it. */
export function checkOpenAIRequest(body: unknown): RequestProblem | null {
  const messages = isObject(body) ? body.messages : undefined;
  if (!Array.isArray(messages)) {
    return { message: "Missing required parameter: 'messages'.", param: "messages" };
  }
  // The tool calls of the assistant message whose answers are being read, and those not answered yet.
  let calls: Set<string> | null = null;
  let pending: string[] = [];
  let assistantAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const role = isObject(m) ? m.role : undefined;
    if (role === "tool") {
      if (calls === null) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        };
      }
      const id = String((m as Json).tool_call_id);
      if (!calls.has(id)) {
        return {
          message:
            `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
          param: `messages.[${i}].tool_call_id`,
        };
      }
      if (pending.includes(id)) pending = pending.filter((p) => p !== id);
      continue;
    }
    if (pending.length > 0) return unanswered(pending, i);
    calls = null;
    const ids = role === "assistant" ? callIds((m as Json).tool_calls) : [];
    if (ids.length > 0) {
      calls = new Set(ids);
      pending = ids;
      assistantAt = i;
    }
  }
  return pending.length > 0 ? unanswered(pending, assistantAt) : null;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function callIds(toolCalls: unknown): string[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.map((c) => String(isObject(c) ? c.id : undefined));
}

function unanswered(ids: readonly string[], at: number): RequestProblem {
  return {
    message:
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${
        ids.join(", ")
      }`,
    param: `messages.[${at}].role`,
  };
}
