import { z } from "zod";
import { BonsaiError, type ErrorCode } from "../errors.ts";
import type { Gate, Identity } from "./gate.ts";

/** The HTTP methods the API uses. */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What a handler gets: validated params, query and body, and who asks. */
export interface ApiRequest<B = unknown, Q = unknown> {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Q;
  readonly body: B;
  readonly identity: Identity;
  /** The client's address (rate limits). */
  readonly client: string;
  readonly raw: Request;
}

/**
 * One route. Every route needs a logged-in caller unless it says `public: true` (only the
 * login, logout and health routes do); the router enforces it for the whole table, so a new
 * route cannot forget it.
 */
export interface Route {
  readonly method: Method;
  /** A path with `{name}` parameters: `/api/user/sessions/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly public?: true;
  readonly body?: z.ZodTypeAny;
  readonly query?: z.AnyZodObject;
  /** What a success returns, for the OpenAPI document. */
  readonly returns: string;
  // deno-lint-ignore no-explicit-any
  handle(req: ApiRequest<any, any>): Response | Promise<Response>;
}

/** Largest request body read (1 MiB): bigger ones get 413 without being read further. */
export const MAX_BODY_BYTES = 1024 * 1024;

interface Compiled {
  readonly route: Route;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

/**
 * The API's router (X4): Host check (DNS rebinding), route match, authentication for every
 * non-public route, the Origin check for cookie-authenticated state changes (CSRF), body size
 * limit, JSON and zod validation (400 naming the field), and BonsaiError codes to statuses.
 * Nothing a client sends makes it answer 5xx unless bonsai itself is broken.
 */
export class Router {
  readonly #routes: Compiled[];
  readonly #gate: Gate;
  readonly #fallback: (req: Request, identity: Identity | null) => Response | Promise<Response>;
  readonly #onError: (err: unknown) => void;

  constructor(
    routes: readonly Route[],
    gate: Gate,
    options: {
      /** Non-API paths (the web pages); gets the caller's identity, null when not logged in. */
      fallback?: (req: Request, identity: Identity | null) => Response | Promise<Response>;
      /** An unexpected error (a bug): logged by the caller without request data. */
      onError?: (err: unknown) => void;
    } = {},
  ) {
    this.#routes = routes.map(compile);
    this.#gate = gate;
    this.#fallback = options.fallback ?? (() => apiError(404, "NOT_FOUND", "No such page"));
    this.#onError = options.onError ?? (() => {});
  }

  /** The routes, for the OpenAPI document and tests. */
  get routes(): readonly Route[] {
    return this.#routes.map((c) => c.route);
  }

  /** Answers one request. */
  async handle(req: Request, client: string): Promise<Response> {
    try {
      return await this.#handle(req, client);
    } catch (err) {
      if (err instanceof BonsaiError) return errorResponse(err);
      this.#onError(err);
      return apiError(500, "INTERNAL", "Internal error (see the server's log)");
    }
  }

  async #handle(req: Request, client: string): Promise<Response> {
    const url = new URL(req.url);
    const hostRefusal = this.#gate.checkHost(req.headers.get("host"));
    if (hostRefusal) return apiError(403, "BAD_HOST", hostRefusal);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return apiError(400, "BAD_REQUEST", "The path is not valid percent-encoding");
    }
    if (!url.pathname.startsWith("/api/")) {
      return await this.#fallback(req, await this.#gate.identify(req));
    }
    const matches = this.#routes.flatMap((c) => {
      const m = c.pattern.exec(url.pathname);
      return m ? [{ c, m }] : [];
    });
    if (matches.length === 0) return apiError(404, "NOT_FOUND", `No API route '${path}'`);
    const hit = matches.find((x) => x.c.route.method === req.method);
    if (!hit) {
      const allowed = matches.map((x) => x.c.route.method).join(", ");
      return apiError(405, "METHOD_NOT_ALLOWED", `'${path}' takes ${allowed}`, {
        allow: allowed,
      });
    }
    const { route } = hit.c;
    const identity = await this.#gate.identify(req);
    if (!route.public && !identity) {
      return apiError(401, "UNAUTHENTICATED", "Log in first: a bearer token or a session cookie", {
        "www-authenticate": 'Bearer realm="bonsai"',
      });
    }
    if (identity?.kind === "cookie" && req.method !== "GET") {
      const refusal = this.#gate.checkOrigin(req.headers.get("origin"), req.headers.get("host"));
      if (refusal) return apiError(403, "BAD_ORIGIN", refusal);
    }
    const params: Record<string, string> = {};
    for (const [i, name] of hit.c.names.entries()) {
      try {
        params[name] = decodeURIComponent(hit.m[i + 1]!);
      } catch {
        return apiError(400, "BAD_REQUEST", `Path parameter '${name}' is not valid`);
      }
    }
    const query = route.query
      ? validate(route.query, Object.fromEntries(url.searchParams), "query")
      : {};
    const body = route.body ? validate(route.body, await readJson(req), "body") : undefined;
    return await route.handle({
      params,
      query,
      body,
      identity: identity ?? { kind: "none" },
      client,
      raw: req,
    });
  }
}

function compile(route: Route): Compiled {
  const names: string[] = [];
  const source = route.path.split("/").map((part) => {
    const param = /^\{(\w+)\}$/.exec(part);
    if (!param) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    names.push(param[1]!);
    return "([^/]+)";
  }).join("/");
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

/** Reads a JSON body of at most MAX_BODY_BYTES; anything else is a 4xx BonsaiError. */
async function readJson(req: Request): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readLimited(req);
  if (bytes.length === 0) throw badRequest("The request needs a JSON body");
  if (!/^application\/json\b/i.test(type)) {
    throw badRequest("The body must be JSON (Content-Type: application/json)");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("The body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`The body is not valid JSON: ${(err as Error).message}`);
  }
}

async function readLimited(req: Request): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Validates `value` with `schema`; the first problem becomes a 400 naming the field. */
function validate<T extends z.ZodTypeAny>(schema: T, value: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.join(".") : where;
  throw new BonsaiError("BAD_REQUEST", `${field}: ${issue.message}`, { data: { field } });
}

function badRequest(message: string): BonsaiError {
  return new BonsaiError("BAD_REQUEST", message);
}

function tooLarge(): BonsaiError {
  return new BonsaiError(
    "BODY_TOO_LARGE",
    `The body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
  );
}

/** The HTTP status of each error code. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case "USAGE":
    case "BAD_REQUEST":
    case "AMBIGUOUS_ID":
    case "CONFIG":
    case "CONFIRMATION_REQUIRED":
      return 400;
    case "UNAUTHENTICATED":
      return 401;
    case "NOT_FOUND":
      return 404;
    case "BODY_TOO_LARGE":
      return 413;
    case "TOO_MANY_REQUESTS":
      return 429;
    case "SESSION_LIVE":
    case "CROSS_PROJECT":
    case "FILES_CHANGED":
    case "SESSION_BUSY":
    case "SESSION_TAKEN":
    case "LEASE_BUSY":
    case "LEASE_LOST":
      return 409;
    case "BUDGET_EXHAUSTED":
      return 402;
    case "PROVIDER":
      return 502;
    case "CANCELLED":
      return 499;
    case "DB_BUSY":
    case "DISK_FULL":
    case "STORAGE_READ_ONLY":
    case "STORAGE_DENIED":
    case "STORAGE_IO":
      return 503;
    case "DB_TOO_NEW":
    case "DB_NOT_SQLITE":
    case "DB_CORRUPT":
    case "MIGRATION_FAILED":
    case "BACKUP_FAILED":
    case "IO":
    case "INTERNAL":
      return 500;
  }
}

/** A BonsaiError as a JSON response. */
export function errorResponse(err: BonsaiError): Response {
  return json(statusOf(err.code), { error: err.toJSON() });
}

/** A JSON error response. */
export function apiError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return json(status, { error: { code, message } }, headers);
}

/** A JSON response (no caching: everything here is live data). */
export function json(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(status === 204 ? null : JSON.stringify(value), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    },
  });
}
