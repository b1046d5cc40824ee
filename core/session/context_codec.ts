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

/** Rough token count of a message (4 characters per token), for context budgeting. */
export function estimateTokens(message: ChatMessage): number {
  let chars = 0;
  for (const b of message.content as ContentBlock[]) {
    if (b.type === "text" || b.type === "thinking") chars += b.text.length;
    else if (b.type === "tool_call") chars += b.rawInput.length + b.name.length + 20;
    else if (b.type === "tool_result") chars += b.content.length + 20;
    else chars += b.data.length;
  }
  return Math.ceil(chars / 4) + 4;
}
