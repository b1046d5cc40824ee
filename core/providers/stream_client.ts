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
  type StreamEvent,
} from "./types.ts";

/** The protocol-specific half of a client: building requests, reading streams, judging errors. */
export interface ProviderAdapter {
  readonly provider: "anthropic" | "openai";
  /** URL, headers and JSON body (text) of the HTTP request. */
  build(request: ModelRequest): { url: string; headers: Record<string, string>; body: string };
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
    for (let attempt = 1;; attempt++) {
      const acc = new Accumulator(request.model);
      const startedAt = this.#deps.clock.now();
      yield* this.#attempt(request, acc);
      const record = this.#record(attempt, acc, startedAt);
      const partial = acc.message();
      yield { type: "attempt", record, partial };
      const failure = acc.failure;
      if (!failure) {
        yield { type: "done", message: partial, record };
        return;
      }
      const retries = attempt - 1;
      if (!failure.retryable || retries >= policy.maxRetries || request.signal.aborted) {
        yield { type: "error", failure, partial, record };
        return;
      }
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

  async *#attempt(request: ModelRequest, acc: Accumulator): AsyncGenerator<StreamEvent> {
    const now = () => this.#deps.clock.now();
    const { url, headers, body } = this.#adapter.build(request);
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
