import assert from "node:assert/strict";
import { join } from "node:path";
import { importCodex } from "../../../core/import/codex.ts";
import { buildDashboard } from "../../../core/usage/dashboard.ts";
import { generateCodexLogs } from "../../../scripts/gen_codex_logs.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

const FIXTURES = new URL("../../fixtures/ccusage/", import.meta.url).pathname;

interface CodexDay {
  date: string;
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
  totalTokens: number;
  costUSD: number;
  models: Record<string, { inputTokens: number; cacheReadTokens: number; outputTokens: number }>;
}

Deno.test("Codex import: per-day and per-model tokens equal ccusage 20's; re-emitted token counts are not counted twice", async () => {
  await using dir = await tempDir();
  const logs = join(dir.path, "codex");
  await generateCodexLogs({ out: logs, sessions: 8, seed: 7 });
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importCodex({ db, ids, roots: [logs] });
  assert.equal(stats.sessions, 8);
  assert.equal(stats.duplicates, 54, "every re-emitted token_count is recognised");
  const expected = JSON.parse(await Deno.readTextFile(join(FIXTURES, "codex_daily.json"))) as {
    daily: CodexDay[];
  };
  const dash = buildDashboard(db, {}, {
    timeZone: "UTC",
    now: Date.UTC(2026, 11, 1),
    breakdown: true,
  });
  const ours = new Map(dash.activity.days.map((d) => [d.date, d]));
  assert.equal(ours.size, expected.daily.length);
  for (const day of expected.daily) {
    const o = ours.get(day.date)!;
    assert.ok(o, day.date);
    assert.deepEqual(
      [
        o.inputTokens,
        o.cacheReadTokens,
        o.outputTokens,
        o.reasoningTokens,
        o.inputTokens + o.cacheReadTokens + o.outputTokens,
      ],
      [
        day.inputTokens,
        day.cacheReadTokens,
        day.outputTokens,
        day.reasoningOutputTokens,
        day.totalTokens,
      ],
      day.date,
    );
    assert.ok(
      Math.abs(o.costUsd - day.costUSD) <= day.costUSD * 0.005 + 1e-9,
      `${day.date}: ${o.costUsd} vs ${day.costUSD}`,
    );
    for (const [model, m] of Object.entries(day.models)) {
      const om = (o.models ?? []).find((x) => x.model === model);
      assert.ok(om, `${day.date} ${model}`);
      assert.deepEqual([om.inputTokens, om.cacheReadTokens, om.outputTokens], [
        m.inputTokens,
        m.cacheReadTokens,
        m.outputTokens,
      ]);
    }
  }
  const again = await importCodex({ db, ids, roots: [logs] });
  assert.equal(again.skippedFiles, 8);
  assert.equal(again.ledgerRows, 0);
  const messages = db.connection.prepare(
    "SELECT count(*) AS n FROM messages WHERE kind = 'tool_call'",
  ).get() as { n: number };
  assert.ok(messages.n > 0, "function calls are kept as tool calls");
});
