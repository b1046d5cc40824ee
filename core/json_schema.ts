// The JSON Schema of a zod schema: a tool's input sent to a provider, an HTTP body in the
// OpenAPI document. Those schemas use a small part of zod; anything outside it throws, so a
// new tool or route with an unsupported type fails its tests instead of going out wrong.
import { z } from "zod";

type Json = Record<string, unknown>;

/** The input JSON Schema of `schema` (a zod object): what the tool accepts. */
export function inputJsonSchema(schema: z.ZodTypeAny): Json {
  return convert(schema, "the tool input");
}

function convert(schema: z.ZodTypeAny, where: string): Json {
  const out = shape(schema, where);
  return schema.description === undefined ? out : { ...out, description: schema.description };
}

function shape(schema: z.ZodTypeAny, where: string): Json {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) {
    return convert(schema._def.innerType, where);
  }
  if (schema instanceof z.ZodNullable) {
    return { anyOf: [convert(schema._def.innerType, where), { type: "null" }] };
  }
  if (schema instanceof z.ZodObject) return object(schema, where);
  if (schema instanceof z.ZodString) return string(schema);
  if (schema instanceof z.ZodNumber) return number(schema);
  if (schema instanceof z.ZodBoolean) return { type: "boolean" };
  if (schema instanceof z.ZodEnum) return { type: "string", enum: [...schema.options] };
  if (schema instanceof z.ZodLiteral) return { const: schema.value };
  if (schema instanceof z.ZodArray) {
    const def = schema._def;
    return {
      type: "array",
      items: convert(def.type, `${where}[]`),
      ...(def.minLength ? { minItems: def.minLength.value } : {}),
      ...(def.maxLength ? { maxItems: def.maxLength.value } : {}),
    };
  }
  throw new Error(`${where}: ${schema.constructor.name} has no JSON Schema here`);
}

function object(schema: z.AnyZodObject, where: string): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(schema.shape as Record<string, z.ZodTypeAny>)) {
    properties[key] = convert(value, `${where}.${key}`);
    if (!value.isOptional()) required.push(key);
  }
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(schema._def.unknownKeys === "strict" ? { additionalProperties: false } : {}),
  };
}

function string(schema: z.ZodString): Json {
  const out: Json = { type: "string" };
  for (const check of schema._def.checks) {
    if (check.kind === "min") out.minLength = check.value;
    else if (check.kind === "max") out.maxLength = check.value;
    else if (check.kind === "length") out.minLength = out.maxLength = check.value;
    else if (check.kind === "regex") out.pattern = check.regex.source;
  }
  return out;
}

function number(schema: z.ZodNumber): Json {
  const out: Json = { type: "number" };
  for (const check of schema._def.checks) {
    if (check.kind === "int") out.type = "integer";
    else if (check.kind === "min") {
      out[check.inclusive ? "minimum" : "exclusiveMinimum"] = check.value;
    } else if (check.kind === "max") {
      out[check.inclusive ? "maximum" : "exclusiveMaximum"] = check.value;
    }
  }
  return out;
}
