import assert from "node:assert/strict";
import { checkOpenAIRequest } from "../../../core/providers/openai_rules.ts";

const system = { role: "system", content: "be brief" };
const user = (content: string) => ({ role: "user", content });
const calls = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({
    id,
    type: "function",
    function: { name: "read", arguments: "{}" },
  })),
});
const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });

const UNANSWERED = (ids: string) =>
  `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`;
const ORPHAN =
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";

const cases: {
  name: string;
  messages: unknown;
  refused: { message: string; param: string } | null;
}[] = [
  // accepted
  { name: "system and user", messages: [system, user("hi")], refused: null },
  {
    name: "an assistant first (no rule against it)",
    messages: [{ role: "assistant", content: "Hello" }, user("hi")],
    refused: null,
  },
  {
    name: "every call answered, in any order",
    messages: [system, user("go"), calls("c1", "c2"), tool("c2"), tool("c1"), user("next")],
    refused: null,
  },
  {
    name: "answered calls, then a plain assistant message",
    messages: [system, user("go"), calls("c1"), tool("c1"), { role: "assistant", content: "done" }],
    refused: null,
  },
  // refused
  {
    name: "no messages",
    messages: undefined,
    refused: { message: "Missing required parameter: 'messages'.", param: "messages" },
  },
  {
    name: "a tool call followed by a user prompt (killed during the tool, then resumed)",
    messages: [system, user("go"), calls("call_1"), user("next")],
    refused: { message: UNANSWERED("call_1"), param: "messages.[3].role" },
  },
  {
    name: "one of two calls unanswered",
    messages: [system, user("go"), calls("c1", "c2"), tool("c1"), user("next")],
    refused: { message: UNANSWERED("c2"), param: "messages.[4].role" },
  },
  {
    name: "calls unanswered at the end",
    messages: [system, user("go"), calls("c1", "c2")],
    refused: { message: UNANSWERED("c1, c2"), param: "messages.[2].role" },
  },
  {
    name: "a tool message after a user message",
    messages: [system, user("go"), tool("c1")],
    refused: { message: ORPHAN, param: "messages.[2].role" },
  },
  {
    name: "a tool message after a plain assistant message",
    messages: [
      system,
      user("go"),
      calls("c1"),
      tool("c1"),
      { role: "assistant", content: "x" },
      tool(
        "c1",
      ),
    ],
    refused: { message: ORPHAN, param: "messages.[5].role" },
  },
  {
    name: "a tool message answering a call the assistant did not make",
    messages: [system, user("go"), calls("c1"), tool("c9")],
    refused: {
      message:
        "Invalid parameter: 'tool_call_id' of 'c9' not found in 'tool_calls' of previous message.",
      param: "messages.[3].tool_call_id",
    },
  },
];

Deno.test("checkOpenAIRequest() accepts what Chat Completions accepts and words refusals as it does", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      const body = c.messages === undefined ? { model: "m" } : { model: "m", messages: c.messages };
      assert.deepEqual(checkOpenAIRequest(body), c.refused);
    });
  }
});
