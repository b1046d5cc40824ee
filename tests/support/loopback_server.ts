// A loopback HTTP server that speaks the Anthropic Messages and OpenAI Chat Completions
// streaming protocols from scripted replies, so the real clients are tested end to end.
// It is as strict as the real APIs about request shapes: a request that breaks one of their
// rules (core/providers/anthropic_rules.ts, openai_rules.ts) gets the API's own HTTP 400.
// Local servers' metadata (llama.cpp `/props`, `/v1/models` fields, any other GET) is
// scriptable too. 127.0.0.1 only.
import { checkAnthropicRequest } from "../../core/providers/anthropic_rules.ts";
import { checkOpenAIRequest } from "../../core/providers/openai_rules.ts";
import type { RequestProblem } from "../../core/providers/types.ts";

/** One scripted HTTP reply. */
export interface ScriptedReply {
  /** Default 200. */
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** A plain body (errors). */
  readonly body?: string;
  /** SSE frames, sent in order (each a complete `event:`/`data:` block ending in a blank line). */
  readonly events?: readonly string[];
  /** Break the connection after this many frames. */
  readonly dropAfter?: number;
  /** Stop sending after this many frames but keep the connection open until the client gives up. */
  readonly hangAfter?: number;
  /** Pause between frames, ms (a scripted GET reply: before answering). */
  readonly delayMs?: number;
}

/** A model listed by GET /v1/models: an id, or a whole entry (extra fields such as `meta`, `max_model_len`). */
export type ListedModel = string | ({ readonly id: string } & Record<string, unknown>);

/** A request the server received. */
export interface RecordedRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

type Route = "anthropic" | "openai";

/** The server. `await using server = await LoopbackServer.start()`. */
export class LoopbackServer {
  readonly requests: RecordedRequest[] = [];
  /** SSE frames written so far, over all replies. */
  framesSent = 0;
  readonly #queues: Record<Route, ScriptedReply[]> = { anthropic: [], openai: [] };
  /** GET requests received (path and query), e.g. "/props?model=m". */
  readonly gets: string[] = [];
  #models: ListedModel[] = ["scripted-model"];
  readonly #getReplies = new Map<string, ScriptedReply>();
  /** Answers held back (GET `delayMs`); close() lets them go. */
  readonly #held = new Set<() => void>();
  #router: ((route: Route, body: Record<string, unknown>) => ScriptedReply | null) | null = null;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #hanging = new Set<ReadableStreamDefaultController<Uint8Array>>();

  private constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => this.#handle(req),
    );
  }

  /** Starts listening on a free loopback port. */
  static start(): Promise<LoopbackServer> {
    return Promise.resolve(new LoopbackServer());
  }

  /** Base URL, e.g. for ANTHROPIC_BASE_URL (the client adds /v1/messages). */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Base URL for OPENAI_BASE_URL (the client adds /chat/completions). */
  get openaiUrl(): string {
    return `${this.url}/v1`;
  }

  /** Queues replies for the Anthropic endpoint. */
  anthropic(...replies: ScriptedReply[]): this {
    this.#queues.anthropic.push(...replies);
    return this;
  }

  /** Queues replies for the OpenAI endpoint. */
  openai(...replies: ScriptedReply[]): this {
    this.#queues.openai.push(...replies);
    return this;
  }

  /** Answers requests the router recognises (returns a reply) before the queues are used. */
  route(router: (route: Route, body: Record<string, unknown>) => ScriptedReply | null): this {
    this.#router = router;
    return this;
  }

  /** Models listed by GET /v1/models (ids, or entries with metadata). */
  models(models: ListedModel[]): this {
    this.#models = models;
    return this;
  }

  /** Answers GET `path` (no query) with `reply` from now on; `delayMs` holds the answer back. */
  get(path: string, reply: ScriptedReply): this {
    this.#getReplies.set(path, reply);
    return this;
  }

  /** Answers llama.cpp's GET /props with `props` as JSON. */
  props(props: unknown): this {
    return this.get("/props", { body: JSON.stringify(props), headers: JSON_HEADERS });
  }

  /** Drops the next queued reply of a route (a test that stopped early). */
  takeNext(route: Route): void {
    this.#queues[route].shift();
  }

  /** Replies still queued (a test that leaves some usually expected more calls). */
  get pending(): number {
    return this.#queues.anthropic.length + this.#queues.openai.length;
  }

  async close(): Promise<void> {
    for (const release of this.#held) release();
    for (const c of this.#hanging) {
      try {
        c.close();
      } catch {
        // already closed by the client
      }
    }
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    if (req.method === "GET") {
      this.gets.push(path + url.search);
      const scripted = this.#getReplies.get(path);
      if (scripted) {
        if (scripted.delayMs) await this.#hold(scripted.delayMs);
        return new Response(scripted.body ?? "", {
          status: scripted.status ?? 200,
          headers: scripted.headers,
        });
      }
    }
    if (req.method === "GET" && path === "/v1/models") {
      return Response.json({
        object: "list",
        data: this.#models.map((m) => ({
          object: "model",
          owned_by: "test",
          ...(typeof m === "string" ? { id: m } : m),
        })),
      });
    }
    const route: Route | null = path === "/v1/messages"
      ? "anthropic"
      : path === "/v1/chat/completions"
      ? "openai"
      : null;
    if (!route) return new Response("not found", { status: 404 });
    const text = await req.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      return new Response("bad json", { status: 400 });
    }
    this.requests.push({ path, headers: Object.fromEntries(req.headers), body });
    // Checked before any scripted reply, as the real APIs check before generating anything.
    const problem = route === "anthropic" ? checkAnthropicRequest(body) : checkOpenAIRequest(body);
    if (problem) return refusal(route, problem);
    const reply = this.#router?.(route, body) ?? this.#queues[route].shift();
    if (!reply) {
      return Response.json({ error: { type: "api_error", message: "no scripted reply left" } }, {
        status: 500,
      });
    }
    if (reply.body !== undefined || !reply.events) {
      return new Response(reply.body ?? "", {
        status: reply.status ?? 200,
        headers: reply.headers,
      });
    }
    return new Response(this.#stream(reply), {
      status: reply.status ?? 200,
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        ...reply.headers,
      },
    });
  }

  /** Waits `ms`, or until close(), so no timer outlives a test. */
  #hold(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.#held.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms);
      this.#held.add(release);
    });
  }

  #stream(reply: ScriptedReply): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const events = reply.events ?? [];
    const hanging = this.#hanging;
    const count = () => this.framesSent++;
    let i = 0;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (reply.dropAfter !== undefined && i >= reply.dropAfter) {
          controller.error(new Error("scripted connection drop"));
          return;
        }
        if (reply.hangAfter !== undefined && i >= reply.hangAfter) {
          hanging.add(controller);
          return; // never enqueue again: the client must time out or cancel
        }
        if (i >= events.length) {
          controller.close();
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        controller.enqueue(encoder.encode(events[i++]!));
        count();
      },
      cancel() {
        i = events.length;
      },
    });
  }
}

const JSON_HEADERS = { "content-type": "application/json" };

/** The API's own HTTP 400 for a request that breaks one of its rules, headers included. */
function refusal(route: Route, problem: RequestProblem): Response {
  if (route === "anthropic") {
    const requestId = `req_011C${randomId(20)}`;
    return Response.json({
      type: "error",
      error: { type: "invalid_request_error", message: problem.message },
      request_id: requestId,
    }, {
      status: 400,
      headers: { "request-id": requestId, "x-should-retry": "false" },
    });
  }
  return Response.json({
    error: {
      message: problem.message,
      type: "invalid_request_error",
      param: problem.param,
      code: null,
    },
  }, {
    status: 400,
    headers: { "x-request-id": `req_${crypto.randomUUID().replaceAll("-", "")}` },
  });
}

function randomId(length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}
