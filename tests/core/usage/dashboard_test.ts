import assert from "node:assert/strict";
import { LedgerStore } from "../../../core/storage/ledger.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { type ToolCallStatus, ToolCallStore } from "../../../core/storage/tool_calls.ts";
import { buildDashboard, isoWeek } from "../../../core/usage/dashboard.ts";
import { tabJson } from "../../../core/usage/dashboard_json.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { ledgerRow, seedUsage } from "../../support/usage_ledger.ts";

const NY = "America/New_York";
const NOW = Date.UTC(2026, 10, 30, 12, 0);

async function fixture() {
  const dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  const f = seedUsage(db, ids, dir.path);
  return {
    db,
    f,
    async [Symbol.asyncDispose]() {
      db.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** JSON rounds ratios to six decimals. */
const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 5e-7, `${what}: ${actual} != ${expected}`);

Deno.test("usage activity: local days, totals, failed attempts and unpriced turns (hand-built ledger)", async () => {
  await using s = await fixture();
  const d = buildDashboard(s.db, {}, { timeZone: NY, now: NOW });
  const json = tabJson.activity(d.activity);
  assert.deepEqual(json.days, [
    {
      date: "2026-11-28",
      turns: 3,
      input_tokens: 1510,
      output_tokens: 600,
      cache_write_tokens: 3000,
      cache_read_tokens: 3400,
      reasoning_tokens: 50,
      total_tokens: 8510,
      cost_usd: 0.062,
      cost_exact: true,
      unpriced_attempts: 0,
    },
    {
      date: "2026-11-29",
      turns: 1, // D; E failed and is not a turn, but its tokens and cost count
      input_tokens: 2100,
      output_tokens: 520,
      cache_write_tokens: 0,
      cache_read_tokens: 0,
      reasoning_tokens: 0,
      total_tokens: 2620,
      cost_usd: 0.001,
      cost_exact: false,
      unpriced_attempts: 1,
    },
  ]);
  assert.deepEqual(json.totals, {
    turns: 4,
    input_tokens: 3610,
    output_tokens: 1120,
    cache_write_tokens: 3000,
    cache_read_tokens: 3400,
    reasoning_tokens: 50,
    total_tokens: 11130,
    cost_usd: 0.063,
    cost_exact: false,
    unpriced_attempts: 1,
  });

  // The same rows in UTC fall on other days: C moves to the 29th.
  const utc = buildDashboard(s.db, {}, { timeZone: "UTC", now: NOW });
  assert.deepEqual(
    utc.activity.days.map((x) => [x.date, x.turns, x.totalTokens, x.costUsd, x.unpricedAttempts]),
    [["2026-11-28", 2, 7510, 0.06, 0], ["2026-11-29", 2, 3620, 0.003, 1]],
  );
});

Deno.test("usage activity: heatmap cells are local weekday x hour; the calendar ends today", async () => {
  await using s = await fixture();
  const { heatmap } = buildDashboard(s.db, {}, { timeZone: NY, now: NOW }).activity;
  const cells: string[] = [];
  heatmap.weekdayHour.tokens.forEach((row, wd) =>
    row.forEach((v, h) => {
      if (v) cells.push(`${wd}@${h}:${v}/${heatmap.weekdayHour.turns[wd]![h]}`);
    })
  );
  assert.deepEqual(cells, ["0@10:2620/1", "6@9:7510/2", "6@22:1000/1"]);
  const cal = heatmap.calendar;
  assert.equal(cal.start, "2025-11-30");
  assert.equal(cal.end, "2026-11-30");
  assert.equal(cal.weeks.length, 53);
  assert.ok(cal.weeks.every((w) => w.length === 7));
  assert.deepEqual(cal.weeks[52], [
    { date: "2026-11-29", tokens: 2620, turns: 1 },
    { date: "2026-11-30", tokens: 0, turns: 0 },
    null,
    null,
    null,
    null,
    null,
  ]);
  assert.deepEqual(cal.weeks[51]![6], { date: "2026-11-28", tokens: 8510, turns: 3 });
  assert.deepEqual(cal.weeks[0]![0], { date: "2025-11-30", tokens: 0, turns: 0 });
});

Deno.test("usage models: tokens, turns, cost and share per provider and model; --breakdown per day", async () => {
  await using s = await fixture();
  const d = buildDashboard(s.db, {}, { timeZone: NY, now: NOW, breakdown: true });
  const models = tabJson.models(d.models).models;
  assert.deepEqual(
    models.map((m) => [m.provider, m.model, m.turns, m.total_tokens, m.cost_usd, m.cost_exact]),
    [
      ["anthropic", "claude-sonnet-4-5", 2, 7630, 0.061, true],
      ["openai", "gpt-5", 1, 1000, 0.002, true],
      ["openai", "local-llama", 1, 2500, 0, false],
    ],
  );
  near(models[0]!.share, 7630 / 11130, "sonnet share");
  assert.ok(Math.abs(models.reduce((a, m) => a + m.share, 0) - 1) < 2e-6, "shares add up");
  assert.equal(models[2]!.unpriced_attempts, 1);
  const day = d.activity.days[0]!;
  assert.deepEqual(
    day.models?.map((m) => [m.model, m.turns, m.totalTokens, m.costUsd]),
    [["claude-sonnet-4-5", 2, 7510, 0.06], ["gpt-5", 1, 1000, 0.002]],
  );
  assert.equal(
    buildDashboard(s.db, {}, { timeZone: NY, now: NOW }).activity.days[0]!.models,
    undefined,
  );
});

Deno.test("usage cost: days, ISO weeks and months, with floors where a turn is unpriced", async () => {
  await using s = await fixture();
  const cost = tabJson.cost(buildDashboard(s.db, {}, { timeZone: NY, now: NOW }).cost);
  assert.deepEqual(cost.days, [
    { period: "2026-11-28", turns: 3, cost_usd: 0.062, cost_exact: true, unpriced_attempts: 0 },
    { period: "2026-11-29", turns: 1, cost_usd: 0.001, cost_exact: false, unpriced_attempts: 1 },
  ]);
  assert.deepEqual(cost.weeks, [
    { period: "2026-W48", turns: 4, cost_usd: 0.063, cost_exact: false, unpriced_attempts: 1 },
  ]);
  assert.deepEqual(cost.months, [
    { period: "2026-11", turns: 4, cost_usd: 0.063, cost_exact: false, unpriced_attempts: 1 },
  ]);
  assert.deepEqual(cost.total, {
    turns: 4,
    cost_usd: 0.063,
    cost_exact: false,
    unpriced_attempts: 1,
  });
  assert.equal(isoWeek("2026-01-01"), "2026-W01");
  assert.equal(isoWeek("2027-01-01"), "2026-W53");
  assert.equal(isoWeek("2024-12-30"), "2025-W01");
});

Deno.test("usage sessions, tools and cache tabs (hand-built ledger)", async () => {
  await using s = await fixture();
  const d = buildDashboard(s.db, {}, { timeZone: NY, now: NOW });
  const sessions = tabJson.sessions(d.sessions).sessions;
  assert.deepEqual(
    sessions.map((
      x,
    ) => [x.title, x.project_path, x.turns, x.total_tokens, x.cost_usd, x.unpriced_attempts]),
    [
      ["Refactor the parser", s.f.projectA, 3, 8510, 0.062, 0],
      ["Write the docs", s.f.projectB, 1, 2620, 0.001, 1],
    ],
  );
  assert.equal(sessions[0]!.session_id, s.f.refactor);
  assert.equal(sessions[0]!.last_active, "2026-11-29T03:30:00.000Z");

  assert.deepEqual(tabJson.tools(d.tools).tools, [
    { tool: "read", calls: 3, failures: 0, total_ms: 60, p95_ms: 30 },
    { tool: "exec", calls: 2, failures: 2, total_ms: 5100, p95_ms: 5000 },
  ]);

  const cache = tabJson.cache(d.cache);
  assert.equal(cache.prompt_tokens, 3610 + 3400 + 3000);
  assert.equal(cache.cache_read_tokens, 3400);
  near(cache.hit_rate, 3400 / 10010, "hit rate");
  assert.equal(cache.expected_cache_read_pct, 85);
  assert.equal(cache.actual_cache_read_pct, 67.5);
  assert.equal(cache.prefix_rewrites, 1);
  assert.equal(cache.baseline_cost_usd, 0.074);
  assert.equal(cache.saved_usd, 0.011);
  assert.equal(cache.cost_usd, 0.063);
  assert.equal(cache.cost_exact, false);
});

Deno.test("usage filters: --since/--until bounds and --project select rows for every tab", async () => {
  await using s = await fixture();
  const since = Date.UTC(2026, 10, 29, 5); // 2026-11-29 00:00 in New York
  const late = buildDashboard(s.db, { since }, { timeZone: NY, now: NOW });
  assert.deepEqual(late.activity.days.map((x) => x.date), ["2026-11-29"]);
  assert.equal(late.activity.totals.totalTokens, 2620);
  assert.deepEqual(late.tools.tools.map((t) => [t.tool, t.calls]), [["exec", 1]]);
  assert.deepEqual(late.sessions.sessions.map((x) => x.title), ["Write the docs"]);

  const early = buildDashboard(s.db, { until: since }, { timeZone: NY, now: NOW });
  assert.equal(early.activity.totals.totalTokens, 8510);
  assert.equal(early.activity.totals.costExact, true);
  assert.equal(early.activity.heatmap.calendar.end, "2026-11-28", "the calendar ends at --until");

  const projectA = new SessionStore(s.db).get(s.f.refactor).projectId;
  const alpha = buildDashboard(s.db, { projectId: projectA }, { timeZone: NY, now: NOW });
  assert.equal(alpha.activity.totals.totalTokens, 8510);
  assert.deepEqual(alpha.models.models.map((m) => m.model), ["claude-sonnet-4-5", "gpt-5"]);
  assert.deepEqual(alpha.tools.tools.map((t) => [t.tool, t.calls]), [["read", 3], ["exec", 1]]);
  assert.equal(alpha.cache.prefixRewrites, 1);
});

Deno.test("usage rollups follow the ledger: inserts, usage replaced on import, forgotten sessions", async () => {
  await using s = await fixture();
  const session = new SessionStore(s.db).get(s.f.docs);
  const ledger = new LedgerStore(s.db);
  const [id] = ledger.append([
    ledgerRow({ sessionId: s.f.docs, projectId: session.projectId, createdAt: NOW - 60_000 }, {
      provider: "anthropic",
      model: "claude-opus-4-1",
      inputTokens: 7,
      outputTokens: 3,
      costUsd: 0.5,
      baselineCostUsd: 0.5,
    }),
  ]);
  const totals = () => buildDashboard(s.db, {}, { timeZone: NY, now: NOW }).activity.totals;
  assert.equal(totals().totalTokens, 11140);
  assert.equal(totals().costUsd, 0.563);
  s.db.write(() =>
    ledger.replaceUsage(
      id!,
      ledgerRow({ sessionId: s.f.docs, projectId: session.projectId, createdAt: NOW - 30_000 }, {
        provider: "anthropic",
        model: "claude-opus-4-1",
        inputTokens: 7,
        outputTokens: 93,
        costUsd: 0.7,
        baselineCostUsd: 0.7,
      }),
    )
  );
  assert.equal(totals().totalTokens, 11230);
  assert.equal(totals().costUsd, 0.763);
  new SessionStore(s.db).forget(s.f.docs);
  const after = buildDashboard(s.db, {}, { timeZone: NY, now: NOW });
  assert.equal(after.activity.totals.totalTokens, 8510);
  assert.equal(after.activity.totals.costExact, true);
  assert.deepEqual(after.tools.tools.map((t) => [t.tool, t.calls]), [["read", 3], ["exec", 1]]);
  const leftovers = s.db.read(() =>
    s.db.prepare("SELECT count(*) AS n FROM usage_rollup WHERE rows <> 0 AND session_id = ?").get(
      s.f.docs,
    )
  ) as { n: number };
  assert.equal(leftovers.n, 0);
});

Deno.test("tool rollups follow calls through their lives: started, finished, completed later, forgotten", async () => {
  await using s = await fixture();
  const tools = new ToolCallStore(s.db);
  const at = Date.UTC(2026, 10, 29, 16, 0);
  const call = (status: ToolCallStatus, durationMs: number | null) => ({
    callId: "live",
    messageSeq: null,
    toolName: "grep",
    args: "{}",
    status,
    result: null,
    diff: null,
    exitCode: null,
    startedAt: at,
    endedAt: durationMs === null ? null : at + durationMs,
    durationMs,
  });
  const grep = () =>
    buildDashboard(s.db, {}, { timeZone: NY, now: NOW }).tools.tools.find((t) => t.tool === "grep");
  tools.put(s.f.docs, [call("running", null)]);
  assert.deepEqual(grep(), { tool: "grep", calls: 1, failures: 0, totalMs: 0, p95Ms: null });
  tools.put(s.f.docs, [call("timeout", 700)]);
  assert.deepEqual(grep(), { tool: "grep", calls: 1, failures: 1, totalMs: 700, p95Ms: 700 });
  tools.put(s.f.docs, [{ ...call("pending", null), callId: "later" }]);
  tools.complete(s.f.docs, "later", { status: "ok", output: "x", endedAt: at + 300 });
  assert.deepEqual(grep(), { tool: "grep", calls: 2, failures: 1, totalMs: 1000, p95Ms: 700 });
  // The period filter applies to counts and to the percentile alike.
  const late = buildDashboard(s.db, { since: at + 60_000 }, { timeZone: NY, now: NOW });
  assert.equal(late.tools.tools.find((t) => t.tool === "grep"), undefined);
  new SessionStore(s.db).forget(s.f.docs);
  assert.equal(grep(), undefined, "forgetting the session removes its calls from the rollups");
  const left = s.db.read(() =>
    s.db.prepare("SELECT sum(calls) AS calls, sum(total_ms) AS ms FROM tool_rollup").get()
  ) as { calls: number; ms: number };
  assert.deepEqual({ ...left }, { calls: 4, ms: 160 }, "the other session's read and exec calls");
});

Deno.test("usage days and hours are local across DST changes and quarter-hour zones", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const session = new SessionStore(db, ids).create({ projectPath: "/work/x", title: "DST" });
  const row = (iso: string, tokens: number) =>
    ledgerRow({ sessionId: session.id, projectId: session.projectId, createdAt: Date.parse(iso) }, {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      inputTokens: tokens,
    });
  new LedgerStore(db).append([
    row("2026-03-08T06:45:00Z", 1), // 01:45 EST
    row("2026-03-08T07:00:00Z", 2), // 03:00 EDT (clocks went forward)
    row("2026-11-01T05:30:00Z", 4), // 01:30 EDT
    row("2026-11-01T06:30:00Z", 8), // 01:30 EST (the hour repeats)
    row("2026-11-01T23:59:00Z", 16), // 18:59 EST
  ]);
  const cells = (zone: string) => {
    const d = buildDashboard(db, {}, { timeZone: zone, now: NOW });
    const out: string[] = [];
    d.activity.heatmap.weekdayHour.tokens.forEach((r, wd) =>
      r.forEach((v, h) => v && out.push(`${wd}@${h}=${v}`))
    );
    return { days: d.activity.days.map((x) => `${x.date}=${x.totalTokens}`), cells: out };
  };
  assert.deepEqual(cells(NY), {
    days: ["2026-03-08=3", "2026-11-01=28"],
    cells: ["0@1=13", "0@3=2", "0@18=16"],
  });
  assert.deepEqual(cells("Asia/Kathmandu"), {
    // +05:45: 06:45Z is 12:30, 07:00Z 12:45, 05:30Z 11:15, 06:30Z 12:15, 23:59Z 05:44 next day.
    days: ["2026-03-08=3", "2026-11-01=12", "2026-11-02=16"],
    cells: ["0@11=4", "0@12=11", "1@5=16"],
  });
  assert.deepEqual(cells("UTC").days, ["2026-03-08=3", "2026-11-01=28"]);
});

Deno.test("usage sums from hourly, daily and quarter-hour rollups equal sums over the raw rows", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  const sessions = new SessionStore(db, ids);
  const a = sessions.create({ projectPath: "/work/a", title: "a" });
  const b = sessions.create({ projectPath: "/work/b", title: "b" });
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const start = Date.UTC(2026, 2, 5); // spans the March DST change in New York
  const rows = Array.from({ length: 400 }, (_, i) => {
    const s = i % 3 === 0 ? b : a;
    return ledgerRow({
      sessionId: s.id,
      projectId: s.projectId,
      createdAt: start + rand(8 * 86_400_000),
    }, {
      provider: i % 5 === 0 ? "openai" : "anthropic",
      model: i % 5 === 0 ? "gpt-5" : "claude-sonnet-4-5",
      inputTokens: 1 + rand(1000),
      outputTokens: rand(300),
      error: i % 17 === 0 ? "overloaded" : null,
    });
  });
  new LedgerStore(db).append(rows);
  const tools = new ToolCallStore(db);
  for (const [i, r] of rows.entries()) {
    tools.put(r.sessionId, [{
      callId: `c${i}`,
      messageSeq: null,
      toolName: i % 2 ? "read" : "exec",
      args: "{}",
      status: i % 7 === 0 ? "error" : "ok",
      result: null,
      diff: null,
      exitCode: null,
      startedAt: r.createdAt,
      endedAt: r.createdAt + i,
      durationMs: i,
    }]);
  }
  const quarter = (ms: number) => ms - (ms % 900_000);
  const inPeriod = (ms: number, since?: number, until?: number) =>
    (since === undefined || quarter(ms) >= since) && (until === undefined || quarter(ms) < until);
  const periods: [number | undefined, number | undefined][] = [[undefined, undefined]];
  for (let i = 0; i < 12; i++) {
    const x = start + rand(8 * 86_400_000);
    const y = x + rand(4 * 86_400_000);
    periods.push([x, y], [x, undefined], [undefined, y]);
  }
  periods.push([start + 3_600_000 * 5 + 60_000, start + 3_600_000 * 5 + 600_000]); // inside an hour
  for (const zone of ["UTC", NY, "Asia/Kathmandu"]) {
    for (const [since, until] of periods) {
      for (const projectId of [undefined, b.projectId]) {
        const d = buildDashboard(db, { since, until, projectId }, {
          timeZone: zone,
          now: NOW,
          breakdown: true,
        });
        const expected = new Map<string, number>();
        const perModel = new Map<string, number>();
        const perDayModel = new Map<string, number>();
        const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
        for (const r of rows) {
          if (!inPeriod(r.createdAt, since, until)) continue;
          if (projectId !== undefined && r.projectId !== projectId) continue;
          const date = new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(r.createdAt);
          add(expected, date, r.inputTokens + r.outputTokens);
          add(perModel, r.model, r.inputTokens + r.outputTokens);
          add(perDayModel, `${date} ${r.model}`, r.inputTokens + r.outputTokens);
        }
        const what = `${zone} ${since} ${until} ${projectId}`;
        assert.deepEqual(
          Object.fromEntries(d.activity.days.map((x) => [x.date, x.totalTokens])),
          Object.fromEntries([...expected].sort()),
          what,
        );
        assert.deepEqual(
          Object.fromEntries(d.models.models.map((m) => [m.model, m.totalTokens]).sort()),
          Object.fromEntries([...perModel].sort()),
          `models ${what}`,
        );
        assert.deepEqual(
          Object.fromEntries(
            d.activity.days.flatMap((x) =>
              (x.models ?? []).map((m) => [`${x.date} ${m.model}`, m.totalTokens])
            ).sort(),
          ),
          Object.fromEntries([...perDayModel].sort()),
          `breakdown ${what}`,
        );
        const durations = new Map<string, number[]>();
        rows.forEach((r, i) => {
          if (!inPeriod(r.createdAt, since, until)) return;
          if (projectId !== undefined && r.projectId !== projectId) return;
          const tool = i % 2 ? "read" : "exec";
          durations.set(tool, [...(durations.get(tool) ?? []), i]);
        });
        const p95 = (xs: number[]) => xs.sort((x, y) => x - y)[Math.ceil(xs.length * 0.95) - 1];
        assert.deepEqual(
          Object.fromEntries(d.tools.tools.map((t) => [t.tool, [t.calls, t.p95Ms]])),
          Object.fromEntries([...durations].map(([t, xs]) => [t, [xs.length, p95(xs)]])),
          `tools ${zone} ${since} ${until} ${projectId}`,
        );
      }
    }
  }
});
