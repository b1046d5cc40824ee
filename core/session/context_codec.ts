import { z } from "zod";
import { BonsaiError } from "../errors.ts";
import type { ChatMessage, ContentBlock } from "../providers/types.ts";

// Model-facing messages are stored as JSON; reading them back is a trust boundary.

const Block = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("thinking"), text: z.string(), signature: z.string().optional() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
  z.object({
    type: z.literal("tool_call"),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    rawInput: z.string(),
  }),
  z.object({
    type: z.literal("tool_result"),
    toolCallId: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
]);

const Message = z.object({ role: z.enum(["user", "assistant"]), content: z.array(Block) });

/** A message as stored JSON. */
export function encodeMessage(message: ChatMessage): string {
  return JSON.stringify(message);
}

/** A stored message, validated. */
export function decodeMessage(json: string, where: string): ChatMessage {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new BonsaiError("DB_CORRUPT", `Stored context item ${where} is not JSON`, { cause: err });
  }
  const parsed = Message.safeParse(value);
  if (!parsed.success) {
    throw new BonsaiError(
      "DB_CORRUPT",
      `Stored context item ${where} is malformed: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data as ChatMessage;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * A cautious token estimate of text for context budgeting: about 3.5 characters per token
 * for English and code, one token per CJK character (tokenizers rarely merge those).
 */
export function estimateTextTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 3.5) + cjk;
}

/** Estimated tokens of a message, with a little per-block overhead. */
export function estimateTokens(message: ChatMessage): number {
  let tokens = 4;
  for (const b of message.content as ContentBlock[]) {
    if (b.type === "text" || b.type === "thinking") tokens += estimateTextTokens(b.text);
    else if (b.type === "tool_call") tokens += estimateTextTokens(b.rawInput) + 12;
    else if (b.type === "tool_result") tokens += estimateTextTokens(b.content) + 8;
    else tokens += Math.ceil(b.data.length / 4);
  }
  return tokens;
}
