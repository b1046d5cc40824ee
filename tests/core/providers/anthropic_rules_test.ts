import assert from "node:assert/strict";
import { checkAnthropicRequest } from "../../../core/providers/anthropic_rules.ts";

const user = (...content: unknown[]) => ({ role: "user", content });
const assistant = (...content: unknown[]) => ({ role: "assistant", content });
const text = (t: string) => ({ type: "text", text: t });
const use = (id: string) => ({ type: "tool_use", id, name: "read", input: {} });
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });

const MISSING = (at: number, ids: string) =>
  `messages.${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
const UNEXPECTED = (at: string, ids: string) =>
  `messages.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${ids}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
const EMPTY = "messages: text content blocks must be non-empty";
const BLANK = "messages: text content blocks must contain non-whitespace text";

const cases: { name: string; body: unknown; refused: string | null }[] = [
  // accepted
  { name: "one user message", body: { messages: [user(text("hi"))] }, refused: null },
  {
    name: "string content",
    body: { messages: [{ role: "user", content: "hi" }] },
    refused: null,
  },
  {
    name: "an assistant first message (accepted by the first-party API)",
    body: { messages: [assistant(text("Hello")), user(text("hi"))] },
    refused: null,
  },
  {
    name: "two user messages in a row (combined into one turn)",
    body: { messages: [user(text("a")), user(text("b"))] },
    refused: null,
  },
  {
    name: "a tool call answered, text after the result",
    body: {
      messages: [
        user(text("go")),
        assistant(text("reading"), use("t1"), use("t2")),
        user(result("t1"), result("t2"), text("and then?")),
      ],
    },
    refused: null,
  },
  {
    name: "results split over two user messages (one turn)",
    body: {
      messages: [
        user(text("go")),
        assistant(use("t1"), use("t2")),
        user(result("t1")),
        user(
          result("t2"),
        ),
      ],
    },
    refused: null,
  },
  {
    name: "a final assistant message may be empty",
    body: { messages: [user(text("go")), assistant()] },
    refused: null,
  },
  {
    name: "system as a string, even empty",
    body: { system: "", messages: [user(text("go"))] },
    refused: null,
  },
  // refused
  { name: "no messages", body: { model: "m" }, refused: "messages: Field required" },
  {
    name: "a system role in messages",
    body: { messages: [{ role: "system", content: "x" }, user(text("go"))] },
    refused:
      'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
  },
  {
    name: "an unknown role",
    body: { messages: [user(text("go")), { role: "tool", content: "x" }] },
    refused: 'messages: Unexpected role "tool". Allowed roles are "user" or "assistant"',
  },
  { name: "an empty text block", body: { messages: [user(text(""))] }, refused: EMPTY },
  {
    name: "a whitespace-only text block",
    body: { messages: [user(text("go")), assistant(text("\n\n")), user(text("x"))] },
    refused: BLANK,
  },
  {
    name: "whitespace-only string content",
    body: { messages: [{ role: "user", content: " \t" }] },
    refused: BLANK,
  },
  {
    name: "an empty content array before the end",
    body: { messages: [user(text("go")), assistant(), user(text("again"))] },
    refused:
      "messages.1: all messages must have non-empty content except for the optional final assistant message",
  },
  {
    name: "an empty system block",
    body: { system: [text("")], messages: [user(text("go"))] },
    refused: "system: text content blocks must be non-empty",
  },
  {
    name: "a whitespace-only system block",
    body: { system: [text(" \n")], messages: [user(text("go"))] },
    refused: "system: text content blocks must contain non-whitespace text",
  },
  {
    name: "a tool call followed by a user prompt (killed during the tool, then resumed)",
    body: {
      messages: [user(text("go")), assistant(text("reading"), use("toolu_1")), user(text("next"))],
    },
    refused: MISSING(1, "toolu_1"),
  },
  {
    name: "one of two calls unanswered",
    body: {
      messages: [user(text("go")), assistant(use("t1"), use("t2")), user(result("t1"))],
    },
    refused: MISSING(1, "t2"),
  },
  {
    name: "a tool call as the last message",
    body: { messages: [user(text("go")), assistant(use("t1"))] },
    refused: MISSING(1, "t1"),
  },
  {
    name: "text before the tool result",
    body: {
      messages: [user(text("go")), assistant(use("t1")), user(text("note"), result("t1"))],
    },
    refused: MISSING(1, "t1"),
  },
  {
    name: "string content before the result (combined into the same turn, text first)",
    body: {
      messages: [
        user(text("go")),
        assistant(use("t1")),
        { role: "user", content: "note" },
        user(result("t1")),
      ],
    },
    refused: MISSING(1, "t1"),
  },
  {
    name: "a message between the call and its result",
    body: {
      messages: [
        user(text("go")),
        assistant(use("t1")),
        user(text("wait")),
        assistant(text("ok")),
        user(result("t1")),
      ],
    },
    refused: MISSING(1, "t1"),
  },
  {
    name: "a tool result in the first message",
    body: { messages: [user(result("toolu_x"))] },
    refused: UNEXPECTED("0.content.0", "toolu_x"),
  },
  {
    name: "a tool result answering a call the previous message did not make",
    body: {
      messages: [user(text("go")), assistant(use("t1")), user(result("t1"), result("t9"))],
    },
    refused: UNEXPECTED("2.content.1", "t9"),
  },
  {
    name: "a tool result after a plain assistant message",
    body: { messages: [user(text("go")), assistant(text("hi")), user(result("t1"))] },
    refused: UNEXPECTED("2.content.0", "t1"),
  },
];

Deno.test("checkAnthropicRequest() accepts what the Messages API accepts and words refusals as it does", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      const problem = checkAnthropicRequest(c.body);
      assert.deepEqual(problem, c.refused === null ? null : { message: c.refused, param: null });
    });
  }
});
