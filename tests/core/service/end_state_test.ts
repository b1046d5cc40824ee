import assert from "node:assert/strict";
import type { RunResult } from "../../../core/agent/loop.ts";
import {
  type CloseReason,
  endStateFor,
  type TurnOutcome,
} from "../../../core/service/end_state.ts";

const run = (patch: Partial<RunResult>): TurnOutcome => ({
  result: {
    status: "completed",
    result: "",
    turns: 1,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
    cost: { usd: 0, exact: true, unpricedAttempts: 0, enforcement: null },
    budgetExhaustion: null,
    error: null,
    ledger: [],
    ...patch,
  },
  review: null,
  cancelledBy: null,
});

Deno.test("endStateFor(): the typed terminal state of every way a session stops being the host's", async (t) => {
  const cases: [CloseReason, TurnOutcome | null, string][] = [
    ["quit", null, "completed/quit"],
    ["eof", run({ status: "failed" }), "completed/eof"],
    ["sigint", null, "completed/sigint"],
    ["new", null, "completed/new"],
    ["clear", null, "completed/clear"],
    ["switched", null, "completed/switched"],
    ["sigterm", run({}), "interrupted/sigterm"],
    ["error", null, "failed/error"],
    ["done", null, "completed/completed"],
    ["done", run({}), "completed/completed"],
    [
      "done",
      run({
        status: "budget_exhausted",
        budgetExhaustion: { reason: "session_cost", limit: 1, used: 1.2 },
      }),
      'budget_exhausted/session_cost/{"limit":1,"used":1.2}',
    ],
    ["done", run({ status: "cancelled" }), "cancelled/cancelled"],
    ["done", { ...run({ status: "cancelled" }), cancelledBy: "sigint" }, "cancelled/sigint"],
    [
      "done",
      run({ status: "failed", error: { kind: "http", message: "HTTP 500" } }),
      "failed/provider_error/HTTP 500",
    ],
  ];
  for (const [reason, last, expected] of cases) {
    await t.step(`${reason} after ${last?.result.status ?? "no turn"} -> ${expected}`, () => {
      const s = endStateFor(reason, last);
      assert.equal([s.status, s.reason, s.detail].filter((x) => x !== null).join("/"), expected);
    });
  }
});
