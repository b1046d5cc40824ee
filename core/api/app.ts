import type { Identity } from "./gate.ts";
import { openApiDocument } from "./openapi.ts";
import { json, type Route, Router } from "./router.ts";
import { apiRoutes, type RouteDeps } from "./routes.ts";

/** What the server's router is built from. */
export interface AppDeps extends RouteDeps {
  /** Pages outside /api (the web view); 404 when absent. */
  readonly pages?: (req: Request, identity: Identity | null) => Response | Promise<Response>;
  /** A bug surfaced by a request (logged without the request's data). */
  readonly onError?: (err: unknown) => void;
}

/** The whole route table of `bonsai serve`: the API, and its OpenAPI document. */
export function appRoutes(deps: RouteDeps): Route[] {
  const routes = apiRoutes(deps);
  const document = openApiDocument(
    [...routes, { ...openApiRoute, handle: () => json(200, null) }],
    deps.version,
  );
  return [...routes, { ...openApiRoute, handle: () => json(200, document) }];
}

const openApiRoute = {
  method: "GET",
  path: "/api/openapi.json",
  summary: "This API's OpenAPI 3.1 document",
  returns: "the document",
} as const;

/** The router of `bonsai serve` (authentication for every route it holds but the public ones). */
export function createApp(deps: AppDeps): Router {
  return new Router(appRoutes(deps), deps.gate, { fallback: deps.pages, onError: deps.onError });
}
