import type { AssistantMessage, ContentBlock, ProviderFailure, Usage } from "./types.ts";
import { NO_USAGE } from "./types.ts";

/** A content block being streamed. */
type Building =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_call"; id: string; name: string; json: string };

/** Collects one attempt's streamed pieces into a message, usage and bookkeeping. */
export class Accumulator {
  readonly #blocks: Building[] = [];
  usage: Usage = NO_USAGE;
  stopReason: string | null = null;
  requestId: string | null = null;
  responseId: string | null = null;
  model: string;
  outputChars = 0;
  firstTokenAt: number | null = null;
  /** Set when the server said the response is complete (message_stop, [DONE]). */
  complete = false;
  failure: ProviderFailure | null = null;

  constructor(model: string) {
    this.model = model;
  }

  /** Starts a block at `index` (providers number blocks; gaps are not expected). */
  start(index: number, block: Building): void {
    this.#blocks[index] = block;
  }

  /** The block at `index`, if any. */
  at(index: number): Building | undefined {
    return this.#blocks[index];
  }

  /** Appends visible text to the block at `index` (created if missing). */
  text(index: number, text: string, now: number): void {
    const b = this.#blocks[index] ?? (this.#blocks[index] = { type: "text", text: "" });
    if (b.type === "text" || b.type === "thinking") b.text += text;
    this.#count(text, now);
  }

  /** Appends tool-argument JSON to the tool call at `index`. */
  toolJson(index: number, partial: string, now: number): void {
    const b = this.#blocks[index];
    if (b?.type === "tool_call") b.json += partial;
    this.#count(partial, now);
  }

  /** Appends to a thinking block's signature. */
  signature(index: number, sig: string): void {
    const b = this.#blocks[index];
    if (b?.type === "thinking") b.signature += sig;
  }

  /** Counts streamed output (for output budgets and time to first token). */
  #count(text: string, now: number): void {
    if (text.length === 0) return;
    this.outputChars += text.length;
    if (this.firstTokenAt === null) this.firstTokenAt = now;
  }

  /** The message so far; tool arguments that do not parse keep their raw text. */
  message(): AssistantMessage {
    const content: ContentBlock[] = [];
    for (const b of this.#blocks) {
      if (!b) continue;
      if (b.type === "text") {
        if (b.text !== "") content.push({ type: "text", text: b.text });
      } else if (b.type === "thinking") {
        content.push(
          b.signature
            ? { type: "thinking", text: b.text, signature: b.signature }
            : { type: "thinking", text: b.text },
        );
      } else if (b.type === "redacted_thinking") {
        content.push({ type: "redacted_thinking", data: b.data });
      } else {
        content.push({
          type: "tool_call",
          id: b.id,
          name: b.name,
          input: parseArgs(b.json),
          rawInput: b.json,
        });
      }
    }
    return { content, stopReason: this.stopReason };
  }
}

/** Parsed tool arguments: `{}` for empty input, null when the JSON is malformed. */
export function parseArgs(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch {
    return null; // malformed: the loop returns a tool error to the model
  }
}
