import assert from "node:assert/strict";
import { addTurn, type ModelTurns, sessionModel } from "../../../core/import/session_model.ts";

const row = (model: string, parentTurns: number, turns: number, tokens = 0): ModelTurns => ({
  provider: model.startsWith("claude") ? "anthropic" : "openai",
  model,
  parentTurns,
  turns,
  tokens,
});

Deno.test("sessionModel() picks the model with most turns, the session's own lane first", async (t) => {
  const cases: [string, ModelTurns[], string | null][] = [
    ["no turns", [], null],
    ["most turns", [row("gpt-5", 3, 3), row("gpt-5-mini", 5, 5)], "gpt-5-mini"],
    [
      "sub-agent turns do not outvote the session's own",
      [row("claude-opus-4-5", 4, 4), row("claude-haiku-4-5", 0, 30)],
      "claude-opus-4-5",
    ],
    [
      "a session of sub-agents only",
      [row("claude-haiku-4-5", 0, 2), row("x", 0, 1)],
      "claude-haiku-4-5",
    ],
    ["a tie goes to more tokens", [row("a", 2, 2, 10), row("b", 2, 2, 90)], "b"],
    ["then to the first name", [row("b", 2, 2, 10), row("a", 2, 2, 10)], "a"],
  ];
  for (const [name, rows, expected] of cases) {
    await t.step(name, () => assert.equal(sessionModel(rows)?.model ?? null, expected));
  }
});

Deno.test("addTurn() tallies turns by provider and model, and by lane", () => {
  const tally = new Map<string, ModelTurns>();
  addTurn(tally, { provider: "openai", model: "gpt-5", lane: "parent", tokens: 10 });
  addTurn(tally, { provider: "openai", model: "gpt-5", lane: "subagent", tokens: 5 });
  assert.deepEqual([...tally.values()], [row("gpt-5", 1, 2, 15)]);
});
