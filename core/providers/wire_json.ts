import type { ChatMessage } from "./types.ts";

/** One message in wire form: the objects (checked against the API's rules) and their JSON. */
export interface Wire<W> {
  readonly wire: W;
  readonly json: string;
}

/**
 * Serialises requests fast: a conversation's messages never change once written, so each
 * one's wire form and JSON are computed once (per client) and the body is spliced together.
 */
export class WireCache<W> {
  readonly #memo = new WeakMap<ChatMessage, Wire<W>>();

  /** The message's wire form, computed once. */
  get(message: ChatMessage, render: (m: ChatMessage) => Wire<W>): Wire<W> {
    let wire = this.#memo.get(message);
    if (wire === undefined) {
      wire = render(message);
      this.#memo.set(message, wire);
    }
    return wire;
  }
}

/** `fields` as JSON with a `messages` array spliced in from already-serialised parts. */
export function bodyJson(fields: Record<string, unknown>, messages: readonly string[]): string {
  const head = JSON.stringify(fields);
  const sep = head.length > 2 ? "," : "";
  return `${head.slice(0, -1)}${sep}"messages":[${messages.filter((m) => m !== "").join(",")}]}`;
}
