import assert from "node:assert/strict";
import { pairToolResults, UNRECORDED_RESULT } from "../../../core/agent/tool_pairing.ts";
import type { ChatMessage, ContentBlock } from "../../../core/providers/types.ts";

const text = (t: string): ContentBlock => ({ type: "text", text: t });
const call = (id: string): ContentBlock => ({
  type: "tool_call",
  id,
  name: "exec",
  input: {},
  rawInput: "{}",
});
const result = (id: string, content = "ok"): ContentBlock => ({
  type: "tool_result",
  toolCallId: id,
  content,
  isError: false,
});
const made = (id: string): ContentBlock => ({
  type: "tool_result",
  toolCallId: id,
  content: UNRECORDED_RESULT,
  isError: true,
});
const user = (...content: ContentBlock[]): ChatMessage => ({ role: "user", content });
const assistant = (...content: ContentBlock[]): ChatMessage => ({ role: "assistant", content });

const CASES: { name: string; input: ChatMessage[]; expected: ChatMessage[] }[] = [
  {
    name: "a well-formed conversation is returned as it is",
    input: [user(text("go")), assistant(call("a"), call("b")), user(result("a"), result("b"))],
    expected: [user(text("go")), assistant(call("a"), call("b")), user(result("a"), result("b"))],
  },
  {
    name: "calls at the end are answered",
    input: [user(text("go")), assistant(text("on it"), call("a"))],
    expected: [user(text("go")), assistant(text("on it"), call("a")), user(made("a"))],
  },
  {
    name: "a prompt after unanswered calls gets the answers first",
    input: [user(text("go")), assistant(call("a")), user(text("and now?"))],
    expected: [user(text("go")), assistant(call("a")), user(made("a"), text("and now?"))],
  },
  {
    name: "a partly answered message gets the missing answers",
    input: [user(text("go")), assistant(call("a"), call("b")), user(result("b"))],
    expected: [user(text("go")), assistant(call("a"), call("b")), user(result("b"), made("a"))],
  },
  {
    name: "two assistant messages in a row: the first one's calls are answered between them",
    input: [user(text("go")), assistant(call("a")), assistant(text("more"))],
    expected: [user(text("go")), assistant(call("a")), user(made("a")), assistant(text("more"))],
  },
  {
    name: "results that answer no call are dropped, and an emptied message with them",
    input: [user(text("go")), user(result("stray")), assistant(text("hi"))],
    expected: [user(text("go")), assistant(text("hi"))],
  },
  {
    name: "results for another message's calls are dropped, text is kept",
    input: [
      user(text("go")),
      assistant(call("a")),
      user(result("a")),
      user(result("a"), text("x")),
    ],
    expected: [user(text("go")), assistant(call("a")), user(result("a")), user(text("x"))],
  },
  {
    name: "text before the results is moved after them",
    input: [user(text("go")), assistant(call("a")), user(text("note"), result("a"))],
    expected: [user(text("go")), assistant(call("a")), user(result("a"), text("note"))],
  },
];

Deno.test("pairToolResults(): every call answered in the next message, no stray results", async (t) => {
  for (const c of CASES) {
    await t.step(c.name, () => {
      assert.deepEqual(pairToolResults(c.input), c.expected);
    });
  }
});

Deno.test("pairToolResults(): unchanged messages keep their identity (their wire JSON stays cached)", () => {
  const input = [user(text("go")), assistant(call("a")), user(result("a")), assistant(call("b"))];
  const out = pairToolResults(input);
  for (let i = 0; i < input.length; i++) assert.equal(out[i], input[i]);
  assert.equal(out.length, 5);
});
