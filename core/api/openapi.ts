import type { z } from "zod";
import { inputJsonSchema } from "../json_schema.ts";
import type { Route } from "./router.ts";

/**
 * The OpenAPI 3.1 document of the route table, from the same zod schemas that validate the
 * requests, so it cannot drift from what the server accepts.
 */
export function openApiDocument(routes: readonly Route[], version: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const query = route.query ? queryParameters(route.query) : [];
    const operation: Record<string, unknown> = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${
        route.path.replace(/\{(\w+)\}/g, "By_$1").split(/[/_.-]/).filter(Boolean)
          .map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")
      }`,
      ...(params.length + query.length ? { parameters: [...params, ...query] } : {}),
      ...(route.body
        ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: bodySchema(route.body) } },
          },
        }
        : {}),
      responses: {
        "2XX": { description: route.returns },
        "4XX": {
          description:
            "A JSON error: {error: {code, message, data?}}; data.field names a bad field",
        },
      },
      ...(route.public ? { security: [] } : {}),
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "bonsai serve",
      version,
      description:
        "The session API of bonsai. Every route but login, logout and health needs a bearer token (bonsai tokens create) or a login cookie.",
    },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        cookie: { type: "apiKey", in: "cookie", name: "bonsai_session" },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}

function queryParameters(schema: z.AnyZodObject): unknown[] {
  const json = inputJsonSchema(schema) as {
    properties: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(json.properties).map(([name, property]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

/** A body's schema; a refined object (ZodEffects) is described by the object inside. */
function bodySchema(schema: z.ZodTypeAny): unknown {
  let inner = schema;
  while (inner._def?.typeName === "ZodEffects") inner = inner._def.schema;
  return inputJsonSchema(inner);
}
