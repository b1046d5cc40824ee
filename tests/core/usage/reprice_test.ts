import assert from "node:assert/strict";
import { BonsaiError } from "../../../core/errors.ts";
import type { Db } from "../../../core/storage/db.ts";
import { LedgerStore } from "../../../core/storage/ledger.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { liveElsewhere } from "../../../core/session/liveness.ts";
import { usePricingContext } from "../../../core/usage/pricing_context.ts";
import { priceTokens } from "../../../core/usage/pricing.ts";
import { reprice } from "../../../core/usage/reprice.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { ledgerRow } from "../../support/usage_ledger.ts";

const T0 = Date.parse("2026-11-10T10:00:00Z");
const HOUR = 3_600_000;

/** Two sessions; rows priced by an old table (or not at all). */
async function seeded(dir: string) {
  const { db, clock, ids } = await openTestDb(dir);
  clock.set(T0);
  const sessions = new SessionStore(db, ids);
  const a = sessions.create({ projectPath: "/p/a", status: "completed" });
  const b = sessions.create({ projectPath: "/p/b", status: "completed" });
  const pid = (id: string) =>
    Number(
      (db.prepare("SELECT project_id FROM sessions WHERE id = ?").get(id) as {
        project_id: number;
      }).project_id,
    );
  const row = (session: string, hours: number, fields: Parameters<typeof ledgerRow>[1]) =>
    ledgerRow(
      { sessionId: session, projectId: pid(session), createdAt: T0 + hours * HOUR },
      fields,
    );
  new LedgerStore(db).append([
    // GPT-5.5 priced at the old hand-typed $2.50 / $0.25 / $15.
    row(a.id, 0, {
      provider: "openai",
      model: "gpt-5.5",
      inputTokens: 10_000,
      cacheReadTokens: 40_000,
      outputTokens: 2_000,
      costUsd: (10_000 * 2.5 + 40_000 * 0.25 + 2_000 * 15) / 1e6,
      baselineCostUsd: (50_000 * 2.5 + 2_000 * 15) / 1e6,
    }),
    // Already right.
    row(a.id, 1, {
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      inputTokens: 100,
      outputTokens: 100,
      costUsd: (100 * 3 + 100 * 15) / 1e6,
      baselineCostUsd: (100 * 3 + 100 * 15) / 1e6,
    }),
    // GPT-5.6 Terra was missing from the old table.
    row(b.id, 2, {
      provider: "openai",
      model: "gpt-5.6-terra",
      inputTokens: 1_000,
      outputTokens: 1_000,
      costUsd: null,
      baselineCostUsd: null,
    }),
    // A local model: unpriced until the user marks it free.
    row(b.id, 30, {
      provider: "openai",
      model: "llama3.2",
      inputTokens: 5_000,
      outputTokens: 500,
      costUsd: null,
      baselineCostUsd: null,
    }),
    // Claude Code's local errors: billed nothing, and no price exists for them.
    row(b.id, 31, { provider: "anthropic", model: "<synthetic>", costUsd: 0, baselineCostUsd: 0 }),
  ]);
  return { db, clock, a: a.id, b: b.id };
}

/** Session totals and every rollup agree with the ledger itself. */
function assertConsistent(db: Db): void {
  const q = <T>(sql: string) => db.prepare(sql).all() as T[];
  const sessions = q<{ id: string; cost: number; unpriced: number; lc: number; lu: number }>(
    `SELECT s.id, s.cost_usd AS cost, s.unpriced_attempts AS unpriced,
       coalesce((SELECT sum(coalesce(cost_usd, 0)) FROM ledger WHERE session_id = s.id), 0) AS lc,
       coalesce((SELECT sum(cost_usd IS NULL) FROM ledger WHERE session_id = s.id), 0) AS lu
     FROM sessions s`,
  );
  for (const s of sessions) {
    assert.ok(Math.abs(s.cost - s.lc) < 1e-12, `session ${s.id} cost ${s.cost} vs ${s.lc}`);
    assert.equal(s.unpriced, s.lu, `session ${s.id} unpriced`);
  }
  const ledger = q<{ cost: number; base: number; unpriced: number; rows: number }>(
    `SELECT sum(coalesce(cost_usd, 0)) AS cost, sum(coalesce(baseline_cost_usd, 0)) AS base,
       sum(cost_usd IS NULL) AS unpriced, count(*) AS rows FROM ledger`,
  )[0]!;
  for (const table of ["usage_rollup", "usage_hour", "usage_hour_sum", "usage_day_model"]) {
    const r = q<{ cost: number; base: number; unpriced: number; rows: number }>(
      `SELECT sum(cost_usd) AS cost, sum(baseline_cost_usd) AS base, sum(unpriced_turns) AS unpriced,
         sum(rows) AS rows FROM ${table}`,
    )[0]!;
    assert.ok(Math.abs(r.cost - ledger.cost) < 1e-12, `${table} cost`);
    assert.ok(Math.abs(r.base - ledger.base) < 1e-12, `${table} baseline`);
    assert.equal(r.unpriced, ledger.unpriced, `${table} unpriced`);
    assert.equal(r.rows, ledger.rows, `${table} rows`);
  }
  const perModel = q<{ model: string; cost: number; lc: number }>(
    `SELECT d.model, sum(d.cost_usd) AS cost,
       (SELECT sum(coalesce(cost_usd, 0)) FROM ledger l WHERE l.model = d.model) AS lc
     FROM usage_day_model d GROUP BY d.model`,
  );
  for (const m of perModel) assert.ok(Math.abs(m.cost - m.lc) < 1e-12, `${m.model} per day`);
}

const costOf = (db: Db, model: string) =>
  (db.prepare("SELECT cost_usd AS c FROM ledger WHERE model = ?").get(model) as {
    c: number | null;
  }).c;

const nobodyLive = () => false;

Deno.test("reprice() recomputes stored costs; session totals and rollups follow", async () => {
  await using dir = await tempDir();
  const { db } = await seeded(dir.path);
  using _ = db;
  assertConsistent(db);
  const report = reprice(db, { liveElsewhere: nobodyLive, batchSize: 2 });
  assert.equal(report.rows, 5);
  assert.equal(report.changed, 2, "gpt-5.5 repriced, gpt-5.6-terra priced");
  assert.equal(report.newlyPriced, 1);
  assert.equal(report.unpriced, 1, "llama3.2 has no price");
  const gpt55 = (10_000 * 5 + 40_000 * 0.5 + 2_000 * 30) / 1e6;
  assert.ok(Math.abs(costOf(db, "gpt-5.5")! - gpt55) < 1e-12);
  const terra = priceTokens("gpt-5.6-terra", {
    inputTokens: 1_000,
    outputTokens: 1_000,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
  }, { at: T0 + 2 * HOUR }).usd!;
  assert.ok(Math.abs(costOf(db, "gpt-5.6-terra")! - terra) < 1e-12);
  assert.equal(costOf(db, "<synthetic>"), 0, "a model without a price keeps its stored cost");
  const m = report.models.find((x) => x.model === "gpt-5.5")!;
  assert.equal(m.changed, 1);
  assert.ok(Math.abs(m.costAfter - m.costBefore - (gpt55 - 0.065)) < 1e-12);
  assert.equal(report.models[0]!.model, "gpt-5.5", "the biggest change first");
  assertConsistent(db);

  const again = reprice(db, { liveElsewhere: nobodyLive });
  assert.equal(again.changed, 0, "a second reprice changes nothing");
});

Deno.test("reprice() with --unpriced-only and --since touches only those rows; saved prices apply", async () => {
  await using dir = await tempDir();
  const { db } = await seeded(dir.path);
  using _ = db;
  try {
    usePricingContext({ savedPrices: () => new Map([["price.llama3.2", '"free"']]) });
    const unpriced = reprice(db, { liveElsewhere: nobodyLive, unpricedOnly: true });
    assert.equal(unpriced.rows, 2);
    assert.equal(unpriced.newlyPriced, 2);
    assert.equal(costOf(db, "llama3.2"), 0, "free is exactly 0");
    assert.ok(Math.abs(costOf(db, "gpt-5.5")! - 0.065) < 1e-12, "priced rows left alone");
    assertConsistent(db);
    const recent = reprice(db, { liveElsewhere: nobodyLive, since: T0 + 3 * HOUR });
    assert.equal(recent.rows, 2);
    assert.equal(recent.changed, 0);
    assert.ok(Math.abs(costOf(db, "gpt-5.5")! - 0.065) < 1e-12, "older rows left alone");
  } finally {
    usePricingContext(null);
  }
});

Deno.test("reprice() refuses while another process has a live session, unless forced", async () => {
  await using dir = await tempDir();
  const { db, clock, ids } = await openTestDb(dir.path);
  using _ = db;
  new SessionStore(db, ids).create({ projectPath: "/p", ownerPid: 999, ownerHost: "h" });
  const rule = {
    liveElsewhere: (row: Parameters<typeof liveElsewhere>[0]) =>
      liveElsewhere(row, clock.now(), { pid: 1, host: "h" }),
  };
  assert.throws(
    () => reprice(db, rule),
    (e: unknown) =>
      e instanceof BonsaiError && e.code === "SESSION_LIVE" && /pass --force/.test(e.message),
  );
  assert.equal(reprice(db, { ...rule, force: true }).liveSessions, 1);
});
