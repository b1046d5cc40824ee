import assert from "node:assert/strict";
import {
  describeRule,
  matchesRule,
  type MatchRule,
  nameVariants,
  splitModelId,
} from "../../../core/usage/model_match.ts";

Deno.test("splitModelId() separates routes, reads Bedrock ids and leaves out local tags", () => {
  const cases: [string, { route: string[]; name: string } | null][] = [
    ["claude-sonnet-4-5", { route: [], name: "claude-sonnet-4-5" }],
    ["  Claude-Sonnet-4-5 ", { route: [], name: "claude-sonnet-4-5" }],
    ["anthropic/claude-sonnet-4.5", { route: ["anthropic"], name: "claude-sonnet-4.5" }],
    ["openrouter/openai/gpt-5", { route: ["openrouter", "openai"], name: "gpt-5" }],
    [
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      { route: ["anthropic"], name: "claude-sonnet-4-5-20250929" },
    ],
    ["anthropic.claude-3-5-sonnet-20240620-v1:0", {
      route: ["anthropic"],
      name: "claude-3-5-sonnet-20240620",
    }],
    ["llama3.2:latest", null],
    ["gpt-oss:20b", null],
    ["", null],
    ["openai/", null],
  ];
  for (const [id, want] of cases) assert.deepEqual(splitModelId(id), want, id);
});

Deno.test("nameVariants() offers ISO dates, dashes for '@' and Claude's dotted versions", () => {
  assert.deepEqual(nameVariants("claude-sonnet-4-20250514"), ["claude-sonnet-4-2025-05-14"]);
  assert.deepEqual(nameVariants("claude-sonnet-4-5@20250929"), ["claude-sonnet-4-5-20250929"]);
  assert.deepEqual(nameVariants("claude-sonnet-4.5"), ["claude-sonnet-4-5"]);
  assert.deepEqual(nameVariants("gpt-5.5"), []);
});

Deno.test("matchesRule() evaluates the table's rules, ignoring case", () => {
  const rule: MatchRule = {
    or: [
      { starts_with: "claude-sonnet-4-5" },
      { and: [{ contains: "sonnet" }, { ends_with: "-eu" }] },
      { equals: "Sonnet-Latest" },
      { regex: "^gpt-5\\.6-sol-\\d{4}-\\d{2}-\\d{2}$" },
    ],
  };
  const cases: [string, boolean][] = [
    ["claude-sonnet-4-5-20250929", true],
    ["claude-sonnet-4-eu", true],
    ["sonnet-latest", true],
    ["gpt-5.6-sol-2026-06-26", true],
    ["gpt-5.6-sol-latest", false],
    ["claude-sonnet-4", false],
  ];
  for (const [id, want] of cases) assert.equal(matchesRule(rule, id), want, id);
  assert.equal(
    describeRule(rule),
    'starting "claude-sonnet-4-5", containing "sonnet" and ending "-eu", "Sonnet-Latest", matching /^gpt-5\\.6-sol-\\d{4}-\\d{2}-\\d{2}$/',
  );
});
