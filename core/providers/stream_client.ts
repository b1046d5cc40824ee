import type { Clock } from "../clock.ts";
import { Accumulator } from "./accumulator.ts";
import { DEFAULT_RETRY, retryDelay, type RetryPolicy } from "./retry.ts";
import { parseSse, type SseEvent } from "./sse.ts";
import {
  type AttemptRecord,
  type ModelClient,
  type ModelRequest,
  NO_USAGE,
  type ProviderFailure,
  type RequestProblem,
  type StreamEvent,
} from "./types.ts";

/** An HTTP request ready to send, with the verdict of the API's request-shape rules. */
export interface BuiltRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** JSON body (text). */
  readonly body: string;
  /** The first rule the request breaks, as the API words it; null when the API would accept it. */
  readonly problem: RequestProblem | null;
}

/** The protocol-specific half of a client: building requests, reading streams, judging errors. */
export interface ProviderAdapter {
  readonly provider: "anthropic" | "openai";
  /** The HTTP request, checked against the API's request-shape rules (cheaply: no re-parsing). */
  build(request: ModelRequest): BuiltRequest;
  /** The request id the server gave (header), for the ledger. */
  requestId(headers: Headers): string | null;
  /** Reads one attempt's SSE events into `acc`, yielding deltas as they arrive. */
  read(
    events: AsyncIterable<SseEvent>,
    acc: Accumulator,
    now: () => number,
  ): AsyncGenerator<StreamEvent>;
  /** Judges a non-2xx response. */
  httpFailure(status: number, headers: Headers, body: string, now: number): ProviderFailure;
}

/** What the client needs from the world. */
export interface ClientDeps {
  readonly fetch: typeof fetch;
  readonly clock: Clock;
  /** In [0, 1), for backoff jitter. */
  readonly random: () => number;
  /** Waits, or rejects when the signal aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly retry?: RetryPolicy;
}

/** A ModelClient over an adapter: HTTP, SSE, retries, and the done/error contract. */
export class StreamingClient implements ModelClient {
  readonly provider: "anthropic" | "openai";
  readonly #adapter: ProviderAdapter;
  readonly #deps: ClientDeps;

  constructor(adapter: ProviderAdapter, deps: ClientDeps) {
    this.provider = adapter.provider;
    this.#adapter = adapter;
    this.#deps = deps;
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    const policy = this.#deps.retry ?? DEFAULT_RETRY;
    // The request is the same on every attempt: build (and check) it once.
    const built = this.#adapter.build(request);
    let previous: ProviderFailure | null = null;
    for (let attempt = 1;; attempt++) {
      const acc = new Accumulator(request.model);
      const startedAt = this.#deps.clock.now();
      if (built.problem) {
        // Never sent: the API would answer 400, and so would every retry.
        acc.failure = requestFailure(this.provider, built.problem);
        acc.usage = NOTHING_BILLED;
      } else {
        yield* this.#attempt(request, built, acc);
      }
      const record = this.#record(attempt, acc, startedAt);
      const partial = acc.message();
      yield { type: "attempt", record, partial };
      const failure = acc.failure;
      if (!failure) {
        yield { type: "done", message: partial, record };
        return;
      }
      const retries = attempt - 1;
      // A server whose stream fails the same way twice (llama.cpp's parser on a given prompt) is
      // deterministic: a third try would only fail again.
      const repeated = failure.kind === "stream" && previous?.kind === "stream" &&
        previous.message === failure.message;
      if (
        !failure.retryable || repeated || retries >= policy.maxRetries || request.signal.aborted
      ) {
        const final = repeated ? { ...failure, retryable: false } : failure;
        yield { type: "error", failure: final, partial, record };
        return;
      }
      previous = failure;
      const delayMs = retryDelay(policy, retries, failure, this.#deps.random());
      yield { type: "retry", attempt, delayMs, failure };
      try {
        await this.#deps.sleep(delayMs, request.signal);
      } catch {
        const cancelled = cancelledFailure();
        yield { type: "error", failure: cancelled, partial, record };
        return;
      }
    }
  }

  async *#attempt(
    request: ModelRequest,
    built: BuiltRequest,
    acc: Accumulator,
  ): AsyncGenerator<StreamEvent> {
    const now = () => this.#deps.clock.now();
    const { url, headers, body } = built;
    let response: Response;
    try {
      response = await this.#deps.fetch(url, {
        method: "POST",
        headers,
        body,
        signal: request.signal,
      });
    } catch (err) {
      acc.failure = request.signal.aborted
        ? cancelledFailure()
        : networkFailure(err, "could not connect");
      acc.usage = NOTHING_BILLED;
      return;
    }
    acc.requestId = this.#adapter.requestId(response.headers);
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      acc.failure = this.#adapter.httpFailure(response.status, response.headers, text, now());
      acc.usage = NOTHING_BILLED;
      return;
    }
    if (!response.body) {
      acc.failure = protocolFailure("the response had no body");
      return;
    }
    try {
      yield* this.#adapter.read(parseSse(response.body), acc, now);
      if (!acc.failure && !acc.complete) {
        acc.failure = networkFailure(null, "the stream ended before the response was complete");
      }
    } catch (err) {
      if (request.signal.aborted) acc.failure = cancelledFailure();
      else if (err instanceof ProtocolError) acc.failure = protocolFailure(err.message);
      else acc.failure = networkFailure(err, "the connection dropped mid-stream");
    } finally {
      await response.body.cancel().catch(() => {});
    }
    // A stream that broke off has no final usage: what we have is a lower bound.
    if (acc.failure) acc.usage = { ...acc.usage, exact: false };
  }

  #record(attempt: number, acc: Accumulator, startedAt: number): AttemptRecord {
    return {
      attempt,
      requestId: acc.requestId,
      responseId: acc.responseId,
      model: acc.model,
      usage: acc.usage,
      outputChars: acc.outputChars,
      stopReason: acc.stopReason,
      failure: acc.failure,
      startedAt,
      latencyMs: this.#deps.clock.now() - startedAt,
      ttftMs: acc.firstTokenAt === null ? null : acc.firstTokenAt - startedAt,
    };
  }
}

/** A request the server refused or never received is not billed: zero tokens, exactly. */
const NOTHING_BILLED = { ...NO_USAGE, exact: true };

/** Thrown by adapters for responses they cannot understand. */
export class ProtocolError extends Error {}

/** A failure value with defaults. */
export function failure(
  fields: Partial<ProviderFailure> & Pick<ProviderFailure, "kind" | "message">,
): ProviderFailure {
  return {
    status: null,
    errorType: null,
    retryable: false,
    rateLimited: false,
    spendLimit: false,
    retryAfterMs: null,
    ...fields,
  };
}

const API_NAMES = {
  anthropic: "Anthropic Messages API",
  openai: "OpenAI Chat Completions API",
} as const;

/** A request bonsai refused to send because the API would refuse it; quotes the API's rule. */
export function requestFailure(
  provider: "anthropic" | "openai",
  problem: RequestProblem,
): ProviderFailure {
  const param = problem.param ? ` (param '${problem.param}')` : "";
  return failure({
    kind: "request",
    message: `Bonsai built a request the ${
      API_NAMES[provider]
    } would refuse, so it was not sent: "${problem.message}"${param}`,
    errorType: "invalid_request_error",
  });
}

function cancelledFailure(): ProviderFailure {
  return failure({ kind: "cancelled", message: "cancelled" });
}

function networkFailure(err: unknown, what: string): ProviderFailure {
  const detail = err instanceof Error ? `: ${err.message}` : "";
  return failure({ kind: "network", message: `${what}${detail}`, retryable: true });
}

function protocolFailure(message: string): ProviderFailure {
  return failure({ kind: "protocol", message: `Unexpected response: ${message}`, retryable: true });
}

/** The real sleep. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
