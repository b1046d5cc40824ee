// The request-shape rules of the Anthropic Messages API that bonsai can break, with the
// HTTP 400 message the API answers each with (`invalid_request_error`). Sources:
// - Consecutive user or assistant turns are combined into one turn (docs.anthropic.com/en/api/messages,
//   quoted in github.com/anthropics/anthropic-sdk-typescript/issues/565), so they are not refused;
//   an assistant first message is accepted by the first-party API since late 2024
//   (anthropic-sdk-typescript#622: only Bedrock still says 'first message must use the "user" role').
// - Every `tool_use` needs its `tool_result` at the start of the next (user) message, text after
//   the results (docs "Handle tool calls": "tool_result blocks must come FIRST in the content
//   array"); the API words it "messages.N: `tool_use` ids were found without `tool_result` blocks
//   immediately after: …" (anthropics/claude-code#1237, #5989, #6521), also when text comes
//   first (NousResearch hermes-agent regression test for a [text, tool_result] message).
// - "messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: …"
//   (anthropics/claude-code#13460, #18947; continuedev/continue#4751).
// - "messages: text content blocks must be non-empty" (anthropics/claude-code#59812),
//   "messages: text content blocks must contain non-whitespace text" (anthropics/claude-code#23440,
//   nick1udwig/kibitz#78); the same two with "system:" for system blocks (dimagi/open-chat-studio#1969,
//   anomalyco/opencode#35101).
// - "messages.N: all messages must have non-empty content except for the optional final assistant
//   message" (anthropics/claude-code#3196, danny-avila/LibreChat#3372).
// - Roles: 'messages: Unexpected role "system". The Messages API accepts a top-level `system`
//   parameter, not "system" as an input message role.' (ianarawjo/ChainForge#271) and
//   'messages: Unexpected role "ai". Allowed roles are "user" or "assistant"' (langchain-ai/langchain#16563).
// Not confirmed from a real answer: "messages: Field required" for a body without `messages`, and
// which index the API names when merged turns are involved (we name the message holding the block).
import type { RequestProblem } from "./types.ts";

type Json = Record<string, unknown>;

/** The first rule `body` (a parsed Messages API request) breaks, or null when the API would accept it. */
export function checkAnthropicRequest(body: unknown): RequestProblem | null {
  const messages = isObject(body) ? body.messages : undefined;
  if (!Array.isArray(messages)) return problem("messages: Field required");
  // The agent loop sends the whole conversation every turn: the first pass reads every block
  // once and notes which messages hold tool blocks, so the pairing pass can skip the rest.
  const tools = new Uint8Array(messages.length);
  return checkMessages(messages, tools) ?? checkSystem((body as Json).system) ??
    checkToolPairs(messages, tools);
}

const problem = (message: string): RequestProblem => ({ message, param: null });

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const NON_SPACE = /\S/;

/** Whether `text` has a non-whitespace character; a printable first character skips the regex. */
function hasText(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c > 32 && c < 127) || NON_SPACE.test(text);
}

/** Bits of `tools[i]`. */
const TOOL_USE = 1;
const TOOL_RESULT = 2;

/** Roles, non-empty content and text blocks; fills `tools` with the tool blocks each message holds. */
function checkMessages(messages: readonly unknown[], tools: Uint8Array): RequestProblem | null {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const role = isObject(m) ? m.role : undefined;
    if (role !== "user" && role !== "assistant") {
      return problem(
        role === "system"
          ? 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.'
          : `messages: Unexpected role "${String(role)}". Allowed roles are "user" or "assistant"`,
      );
    }
    const content = (m as Json).content;
    if (content === "" || (Array.isArray(content) && content.length === 0)) {
      if (role === "assistant" && i === messages.length - 1) continue;
      return problem(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    if (typeof content === "string") {
      if (!hasText(content)) return problem(`messages: ${BLANK}`);
    } else if (Array.isArray(content)) {
      const bad = textProblem(content, tools, i);
      if (bad) return problem(`messages: ${bad}`);
    }
  }
  return null;
}

function checkSystem(system: unknown): RequestProblem | null {
  if (!Array.isArray(system)) return null;
  const bad = textProblem(system, null, 0);
  return bad ? problem(`system: ${bad}`) : null;
}

const EMPTY = "text content blocks must be non-empty";
const BLANK = "text content blocks must contain non-whitespace text";

/** What is wrong with the text blocks of a content array, in the API's words. */
function textProblem(blocks: readonly unknown[], tools: Uint8Array | null, at: number) {
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j] as Json | null;
    if (typeof b !== "object" || b === null) continue;
    const type = b.type;
    if (type === "text") {
      const text = b.text;
      if (typeof text !== "string") continue;
      if (text === "") return EMPTY;
      if (!hasText(text)) return BLANK;
    } else if (tools !== null) {
      if (type === "tool_use") tools[at]! |= TOOL_USE;
      else if (type === "tool_result") tools[at]! |= TOOL_RESULT;
    }
  }
  return null;
}

/**
 * Tool pairing over turns (runs of same-role messages, which the API combines): an assistant
 * turn's `tool_use` ids must all be answered by the `tool_result` blocks that open the next turn,
 * and a user turn's `tool_result` blocks must answer `tool_use` blocks of the turn before it.
 * Nothing is allocated per turn while the pairs hold: this runs on every request bonsai sends.
 */
function checkToolPairs(messages: readonly unknown[], tools: Uint8Array): RequestProblem | null {
  // Reused buffers with counts: the ids of the last assistant turn's tool_use blocks, the message
  // holding each, and the ids of the tool_result blocks opening the turn after it.
  const uses: string[] = [];
  const usedAt: number[] = [];
  const answered: string[] = [];
  let used = 0;
  for (let start = 0; start < messages.length;) {
    const role = (messages[start] as Json).role;
    let end = start;
    while (end + 1 < messages.length && (messages[end + 1] as Json).role === role) end++;
    if (role === "assistant") {
      used = 0;
      for (let i = start; i <= end; i++) {
        if ((tools[i]! & TOOL_USE) === 0) continue;
        for (const b of blocksOf(messages[i] as Json)) {
          if (!isObject(b) || b.type !== "tool_use") continue;
          uses[used] = String(b.id);
          usedAt[used++] = i;
        }
      }
      if (used > 0) {
        const opened = leadingResults(messages, end + 1, answered);
        let first = -1;
        for (let k = 0; k < used && first < 0; k++) {
          if (!includes(answered, opened, uses[k]!)) first = k;
        }
        if (first >= 0) {
          const missing = uses.slice(first, used).filter((id) => !includes(answered, opened, id));
          return problem(
            `messages.${
              usedAt[first]
            }: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${
              missing.join(", ")
            }. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          );
        }
      }
    } else {
      for (let i = start; i <= end; i++) {
        if ((tools[i]! & TOOL_RESULT) === 0) continue;
        const bad = unexpectedResults(messages[i] as Json, uses, used);
        if (bad) {
          return problem(
            `messages.${i}.content.${bad.at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${
              bad.ids.join(", ")
            }. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
      }
      used = 0;
    }
    start = end + 1;
  }
  return null;
}

/** Whether `id` is among the first `count` of `ids`. */
function includes(ids: readonly string[], count: number, id: string): boolean {
  for (let k = 0; k < count; k++) if (ids[k] === id) return true;
  return false;
}

function blocksOf(message: Json): readonly unknown[] {
  return Array.isArray(message.content) ? message.content : [];
}

/**
 * Writes into `ids` the ids of the `tool_result` blocks that open the user turn starting at
 * `from`; returns how many.
 */
function leadingResults(messages: readonly unknown[], from: number, ids: string[]): number {
  let count = 0;
  for (let i = from; i < messages.length && (messages[i] as Json).role === "user"; i++) {
    const content = (messages[i] as Json).content;
    if (typeof content === "string") return count; // one text block
    for (const b of blocksOf(messages[i] as Json)) {
      if (!isObject(b) || b.type !== "tool_result") return count;
      ids[count++] = String(b.tool_use_id);
    }
  }
  return count;
}

function unexpectedResults(message: Json, expected: readonly string[], count: number) {
  const blocks = blocksOf(message);
  let found: { at: number; ids: string[] } | null = null;
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j];
    if (!isObject(b) || b.type !== "tool_result") continue;
    const id = String(b.tool_use_id);
    if (includes(expected, count, id)) continue;
    if (found) found.ids.push(id);
    else found = { at: j, ids: [id] };
  }
  return found;
}
