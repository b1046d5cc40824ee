// Compares an imported history with ccusage 20's reports on the same logs
// (tests/fixtures/ccusage/README.md): tokens exactly, per day, model and session; cost within
// 0.5 % where bonsai prices every model of the day (a model it does not price yet is a floor,
// U4, and is skipped rather than failed).
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Db } from "../../../core/storage/db.ts";
import { buildDashboard, type DayTotals } from "../../../core/usage/dashboard.ts";
import { priceTokens } from "../../../core/usage/pricing.ts";

const FIXTURES = new URL("../../fixtures/ccusage/", import.meta.url).pathname;

interface CodexTokens {
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
  totalTokens: number;
}

interface CodexDay extends CodexTokens {
  date: string;
  costUSD: number;
  models: Record<string, CodexTokens>;
}

interface CodexSession extends CodexTokens {
  sessionFile: string;
  costUSD: number;
  models: Record<string, CodexTokens>;
}

/** What a comparison checked, for the test to assert it covered something. */
export interface Compared {
  days: number;
  models: number;
  sessions: number;
  /** Days whose cost was compared (every model priced), and those skipped. */
  pricedDays: number;
  unpricedDays: number;
}

/** A ccusage fixture, read from tests/fixtures/ccusage/. */
export async function fixture<T>(name: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(join(FIXTURES, name))) as T;
}

/** Whether bonsai has a price for `model` (false until its price data knows it). */
export function priced(model: string): boolean {
  const zero = { inputTokens: 1, outputTokens: 0, cacheReadTokens: 0 };
  return priceTokens(model, { ...zero, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 }).usd !== null;
}

/** Asserts the Codex import in `db` equals ccusage's `codex daily` and `codex session` reports. */
export async function assertMatchesCcusage(
  db: Db,
  files: { daily: string; session: string },
): Promise<Compared> {
  const { daily } = await fixture<{ daily: CodexDay[] }>(files.daily);
  const { sessions } = await fixture<{ sessions: CodexSession[] }>(files.session);
  const compared: Compared = { days: 0, models: 0, sessions: 0, pricedDays: 0, unpricedDays: 0 };
  const dash = buildDashboard(db, {}, {
    timeZone: "UTC",
    now: Date.UTC(2026, 11, 1),
    breakdown: true,
  });
  const ours = new Map(dash.activity.days.map((d) => [d.date, d]));
  assert.equal(ours.size, daily.length, "days with usage");
  for (const day of daily) {
    const o: DayTotals | undefined = ours.get(day.date);
    assert.ok(o, `missing day ${day.date}`);
    const models = o.models ?? [];
    assert.deepEqual(
      tokensOf(o),
      [day.inputTokens, day.cacheReadTokens, day.outputTokens, day.reasoningOutputTokens],
      day.date,
    );
    assert.equal(o.inputTokens + o.cacheReadTokens + o.outputTokens, day.totalTokens, day.date);
    compared.days++;
    assert.equal(models.length, Object.keys(day.models).length, `${day.date} models`);
    for (const [model, m] of Object.entries(day.models)) {
      const om = models.find((x) => x.model === model);
      assert.ok(om, `${day.date} ${model}`);
      assert.deepEqual(
        tokensOf(om),
        [m.inputTokens, m.cacheReadTokens, m.outputTokens, m.reasoningOutputTokens],
        `${day.date} ${model}`,
      );
      compared.models++;
    }
    if (Object.keys(day.models).every(priced) && day.costUSD > 0) {
      assert.ok(
        Math.abs(o.costUsd - day.costUSD) <= day.costUSD * 0.005 + 1e-9,
        `${day.date}: cost ${o.costUsd} vs ccusage ${day.costUSD}`,
      );
      compared.pricedDays++;
    } else compared.unpricedDays++;
  }
  const rows = db.connection.prepare(
    `SELECT s.external_id AS id, sum(l.input_tokens) AS input, sum(l.cache_read_tokens) AS cached,
       sum(l.output_tokens) AS output, sum(l.reasoning_tokens) AS reasoning
     FROM ledger l JOIN sessions s ON s.id = l.session_id GROUP BY s.external_id`,
  ).all() as { id: string; input: number; cached: number; output: number; reasoning: number }[];
  assert.equal(rows.length, sessions.length, "sessions with usage");
  for (const s of sessions) {
    // ccusage names a session by its file; bonsai by the id the file is named after.
    const o = rows.find((r) => s.sessionFile.endsWith(r.id));
    assert.ok(o, s.sessionFile);
    assert.deepEqual(
      [o.input, o.cached, o.output, o.reasoning],
      [s.inputTokens, s.cacheReadTokens, s.outputTokens, s.reasoningOutputTokens],
      s.sessionFile,
    );
    compared.sessions++;
  }
  return compared;
}

function tokensOf(
  t: {
    inputTokens: number;
    cacheReadTokens: number;
    outputTokens: number;
    reasoningTokens: number;
  },
): number[] {
  return [t.inputTokens, t.cacheReadTokens, t.outputTokens, t.reasoningTokens];
}
