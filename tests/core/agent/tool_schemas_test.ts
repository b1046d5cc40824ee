import assert from "node:assert/strict";
import { z } from "zod";
import { inputJsonSchema } from "../../../core/json_schema.ts";
import { ToolRegistry } from "../../../core/agent/tools/registry.ts";

// What the model is told about each built-in tool's input: a change here changes every
// request bonsai sends, so it must be deliberate.
const EXPECTED: Record<string, unknown> = {
  "read": {
    "type": "object",
    "properties": {
      "path": {
        "type": "string",
        "minLength": 1,
        "description": "File path, relative to the project root (or absolute inside it)",
      },
      "offset": {
        "description": "First line to read, 1-based",
        "type": "integer",
        "minimum": 1,
      },
      "limit": {
        "description": "How many lines (max 2000)",
        "type": "integer",
        "minimum": 1,
        "maximum": 2000,
      },
    },
    "required": [
      "path",
    ],
    "additionalProperties": false,
  },
  "write": {
    "type": "object",
    "properties": {
      "path": {
        "type": "string",
        "minLength": 1,
        "description": "File path, relative to the project root",
      },
      "content": {
        "type": "string",
        "description": "The complete new content",
      },
    },
    "required": [
      "path",
      "content",
    ],
    "additionalProperties": false,
  },
  "edit": {
    "type": "object",
    "properties": {
      "path": {
        "type": "string",
        "minLength": 1,
        "description": "File path, relative to the project root",
      },
      "old_string": {
        "type": "string",
        "minLength": 1,
        "description": "Exact text to replace",
      },
      "new_string": {
        "type": "string",
        "description": "Replacement text",
      },
      "replace_all": {
        "description": "Replace every occurrence (default false)",
        "type": "boolean",
      },
    },
    "required": [
      "path",
      "old_string",
      "new_string",
    ],
    "additionalProperties": false,
  },
  "exec": {
    "type": "object",
    "properties": {
      "command": {
        "type": "string",
        "minLength": 1,
        "description": "The shell command",
      },
      "timeout_ms": {
        "description": "Time limit in ms",
        "type": "integer",
        "minimum": 1,
        "maximum": 600000,
      },
      "description": {
        "description": "What the command does, in a few words",
        "type": "string",
        "maxLength": 200,
      },
    },
    "required": [
      "command",
    ],
    "additionalProperties": false,
  },
  "glob": {
    "type": "object",
    "properties": {
      "pattern": {
        "type": "string",
        "minLength": 1,
        "description": "Glob pattern, relative to `path`",
      },
      "path": {
        "description": "Directory to search in (default: the project root)",
        "type": "string",
      },
    },
    "required": [
      "pattern",
    ],
    "additionalProperties": false,
  },
  "grep": {
    "type": "object",
    "properties": {
      "pattern": {
        "type": "string",
        "minLength": 1,
        "description": "Regular expression",
      },
      "path": {
        "description": "File or directory to search (default: the project root)",
        "type": "string",
      },
      "glob": {
        "description": "Only files whose path matches this glob",
        "type": "string",
      },
      "ignore_case": {
        "type": "boolean",
      },
      "output": {
        "type": "string",
        "enum": [
          "content",
          "files",
          "count",
        ],
      },
    },
    "required": [
      "pattern",
    ],
    "additionalProperties": false,
  },
  "set_session_title": {
    "type": "object",
    "properties": {
      "title": {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "description": "The title",
      },
    },
    "required": [
      "title",
    ],
    "additionalProperties": false,
  },
  "todo_write": {
    "type": "object",
    "properties": {
      "plan": {
        "description": "A short plan (markdown)",
        "type": "string",
        "maxLength": 4000,
      },
      "todos": {
        "maxItems": 100,
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "id": {
              "description": "Stable id (default: its position)",
              "type": "string",
              "minLength": 1,
              "maxLength": 40,
            },
            "content": {
              "type": "string",
              "minLength": 1,
              "maxLength": 500,
            },
            "status": {
              "type": "string",
              "enum": [
                "pending",
                "in_progress",
                "completed",
              ],
            },
          },
          "required": [
            "content",
            "status",
          ],
        },
      },
    },
    "required": [
      "todos",
    ],
    "additionalProperties": false,
  },
  "recall": {
    "type": "object",
    "properties": {
      "query": {
        "type": "string",
        "minLength": 1,
        "maxLength": 500,
      },
      "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
      },
    },
    "required": [
      "query",
    ],
    "additionalProperties": false,
  },
  "peers": {
    "type": "object",
    "properties": {
      "action": {
        "type": "string",
        "enum": ["list", "send", "wait", "claim", "release", "claims"],
      },
      "to": { "type": "string", "minLength": 1 },
      "text": { "type": "string" },
      "session": { "type": "string", "minLength": 1 },
      "path": { "type": "string", "minLength": 1 },
      "note": { "type": "string", "maxLength": 500 },
      "minutes": {
        "type": "integer",
        "minimum": 1,
        "maximum": 1440,
        "description": "claim length, default 60",
      },
    },
    "required": ["action"],
    "additionalProperties": false,
  },
  "task": {
    "type": "object",
    "properties": {
      "description": { "type": "string", "minLength": 1, "maxLength": 80 },
      "prompt": {
        "type": "string",
        "minLength": 1,
        "maxLength": 40000,
        "description": "All it needs to know",
      },
      "model": { "type": "string", "minLength": 1, "maxLength": 200 },
      "tools": {
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 64 },
        "minItems": 1,
        "maxItems": 32,
      },
    },
    "required": ["description", "prompt"],
    "additionalProperties": false,
  },
};

Deno.test("every built-in tool sends exactly its expected input schema", () => {
  const specs = new ToolRegistry().specs;
  assert.deepEqual(specs.map((s) => s.name), Object.keys(EXPECTED));
  for (const spec of specs) assert.deepEqual(spec.inputSchema, EXPECTED[spec.name], spec.name);
});

Deno.test("input schemas: nullable, literal, default, exclusive bounds and passthrough objects", () => {
  const schema = z.object({
    a: z.string().nullable(),
    b: z.literal("x"),
    c: z.number().gt(0).lt(1).default(0.5),
    d: z.object({ e: z.boolean() }).passthrough(),
    f: z.array(z.string()).min(1),
  });
  assert.deepEqual(inputJsonSchema(schema), {
    type: "object",
    properties: {
      a: { anyOf: [{ type: "string" }, { type: "null" }] },
      b: { const: "x" },
      c: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      d: { type: "object", properties: { e: { type: "boolean" } }, required: ["e"] },
      f: { type: "array", items: { type: "string" }, minItems: 1 },
    },
    required: ["a", "b", "d", "f"],
  });
});

Deno.test("input schemas: a type with no JSON Schema mapping throws, naming where it is", () => {
  const schema = z.object({ when: z.object({ at: z.date() }) });
  assert.throws(() => inputJsonSchema(schema), /the tool input\.when\.at: ZodDate/);
});
