import type { ChatMessage } from "./types.ts";

/**
 * Serialises requests fast: a conversation's messages never change once written, so each
 * one's wire JSON is computed once (per client) and the body is spliced together.
 */
export class WireCache {
  readonly #memo = new WeakMap<ChatMessage, string>();

  /** The message's wire JSON, computed once. */
  get(message: ChatMessage, render: (m: ChatMessage) => string): string {
    let json = this.#memo.get(message);
    if (json === undefined) {
      json = render(message);
      this.#memo.set(message, json);
    }
    return json;
  }
}

/** `fields` as JSON with a `messages` array spliced in from already-serialised parts. */
export function bodyJson(fields: Record<string, unknown>, messages: readonly string[]): string {
  const head = JSON.stringify(fields);
  const sep = head.length > 2 ? "," : "";
  return `${head.slice(0, -1)}${sep}"messages":[${messages.filter((m) => m !== "").join(",")}]}`;
}
