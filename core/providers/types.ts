// Provider-neutral conversation types and the streaming contract every client keeps.

/** A piece of a message. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly text: string; readonly signature?: string }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | {
    readonly type: "tool_call";
    readonly id: string;
    readonly name: string;
    /** Parsed arguments; null when the model's JSON did not parse (see `rawInput`). */
    readonly input: unknown;
    /** The arguments exactly as streamed. */
    readonly rawInput: string;
  }
  | {
    readonly type: "tool_result";
    readonly toolCallId: string;
    readonly content: string;
    readonly isError: boolean;
  };

/** A message of the model-facing conversation. Tool results travel in user messages. */
export interface ChatMessage {
  readonly role: "user" | "assistant";
  readonly content: readonly ContentBlock[];
}

/** A tool offered to the model. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly inputSchema: Record<string, unknown>;
}

/** How hard a reasoning model should think; null leaves the provider default. */
export type Reasoning = "off" | "low" | "medium" | "high";

/** One request to a model. */
export interface ModelRequest {
  readonly model: string;
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly maxOutputTokens: number;
  readonly reasoning: Reasoning | null;
  /** The session's conversation cache key (OpenAI `prompt_cache_key`). */
  readonly cacheKey: string | null;
  readonly signal: AbortSignal;
}

/** Token usage normalised across providers. */
export interface Usage {
  /** Input tokens not read from cache and not written to it (Anthropic's `input_tokens`). */
  readonly inputTokens: number;
  /** Output tokens, reasoning included. */
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  /** Part of outputTokens spent on reasoning, when reported. */
  readonly reasoningTokens: number;
  /** False when the provider reported no usage (numbers are zero or estimated). */
  readonly exact: boolean;
}

/** Usage of nothing. */
export const NO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: 0,
  exact: false,
};

/** Why a stream failed. `retryable` is the client's judgement; `spendLimit` is never retried. */
export interface ProviderFailure {
  readonly kind:
    | "http"
    | "stream" // an `error` event in the stream
    | "network" // connection refused or dropped
    | "timeout"
    | "cancelled"
    | "protocol" // a response we could not understand
    // bonsai built a request the API would refuse (see anthropic_rules.ts, openai_rules.ts):
    // it was never sent, and retrying cannot help
    | "request";
  readonly message: string;
  readonly status: number | null;
  readonly errorType: string | null;
  readonly retryable: boolean;
  readonly rateLimited: boolean;
  readonly spendLimit: boolean;
  /** Server-requested delay before retrying, ms. */
  readonly retryAfterMs: number | null;
}

/** A rule of an API's request shape that a request breaks, worded as that API words it. */
export interface RequestProblem {
  /** The API's own error message, verbatim. */
  readonly message: string;
  /** OpenAI's `param` (e.g. "messages.[3].role"); null for Anthropic, which names none. */
  readonly param: string | null;
}

/** What one HTTP attempt produced; every attempt becomes one ledger row. */
export interface AttemptRecord {
  readonly attempt: number;
  readonly requestId: string | null;
  readonly responseId: string | null;
  readonly model: string;
  readonly usage: Usage;
  /** Characters streamed in this attempt (text, thinking and tool arguments). */
  readonly outputChars: number;
  readonly stopReason: string | null;
  readonly failure: ProviderFailure | null;
  readonly startedAt: number;
  readonly latencyMs: number;
  readonly ttftMs: number | null;
}

/** The assistant message as far as it got. */
export interface AssistantMessage {
  readonly content: readonly ContentBlock[];
  readonly stopReason: string | null;
}

/**
 * Events of one model call. A stream always ends with exactly one `done` or `error`,
 * each carrying the (possibly partial) message; clients never throw for provider failures.
 * Every attempt (retries included) is reported by an `attempt` event before the next one.
 */
export type StreamEvent =
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "thinking_delta"; readonly text: string }
  | { readonly type: "tool_call_start"; readonly id: string; readonly name: string }
  | { readonly type: "tool_call_delta"; readonly id: string; readonly partialJson: string }
  | { readonly type: "attempt"; readonly record: AttemptRecord; readonly partial: AssistantMessage }
  | {
    readonly type: "retry";
    readonly attempt: number;
    readonly delayMs: number;
    readonly failure: ProviderFailure;
  }
  | { readonly type: "done"; readonly message: AssistantMessage; readonly record: AttemptRecord }
  | {
    readonly type: "error";
    readonly failure: ProviderFailure;
    readonly partial: AssistantMessage;
    readonly record: AttemptRecord;
  };

/** A model provider's client. Implementations know nothing of storage. */
export interface ModelClient {
  readonly provider: "anthropic" | "openai";
  /** Streams one model call, retrying transient failures. See StreamEvent for the contract. */
  stream(request: ModelRequest): AsyncIterable<StreamEvent>;
}
