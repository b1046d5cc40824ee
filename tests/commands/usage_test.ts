import assert from "node:assert/strict";
import { join } from "node:path";
import { openTestDb } from "../support/db.ts";
import { tempDir, treeHash } from "../support/temp.ts";
import { seedUsage } from "../support/usage_ledger.ts";
import { cli, testWorld } from "../support/world.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { displayWidth } from "../../tui/render/width.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0);
const TOTALS = [
  "turns",
  "input_tokens",
  "output_tokens",
  "cache_write_tokens",
  "cache_read_tokens",
  "reasoning_tokens",
  "total_tokens",
  "cost_usd",
  "cost_exact",
  "unpriced_attempts",
];

async function setup() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const { db, ids } = await openTestDb(home);
  const f = seedUsage(db, ids, dir.path);
  db.close();
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const t = testWorld({ home, cwd: f.projectA, clock: new FakeClock(NOW), env });
    const code = await cli(t.world, ...args);
    return { code, out: t.stdout.text, err: t.stderr.text };
  };
  return { dir, home, f, run };
}

Deno.test("bonsai usage --json gives every tab under its name with the documented fields", async () => {
  const s = await setup();
  await using _ = s.dir;
  const r = await s.run(["usage", "--json", "--tz", "America/New_York"]);
  assert.equal(r.code, 0, r.err);
  const all = JSON.parse(r.out);
  assert.deepEqual(Object.keys(all), ["activity", "models", "cost", "sessions", "tools", "cache"]);
  assert.deepEqual(Object.keys(all.activity), ["days", "totals", "heatmap"]);
  assert.deepEqual(Object.keys(all.activity.days[0]), ["date", ...TOTALS]);
  assert.deepEqual(Object.keys(all.activity.totals), TOTALS);
  assert.equal(all.activity.totals.total_tokens, 11130);
  assert.equal(all.activity.heatmap.weekday_hour.tokens.length, 7);
  assert.equal(all.activity.heatmap.calendar.weeks.length, 53);
  assert.deepEqual(Object.keys(all.models.models[0]), ["provider", "model", ...TOTALS, "share"]);
  assert.deepEqual(Object.keys(all.cost), ["days", "weeks", "months", "total"]);
  assert.deepEqual(Object.keys(all.sessions.sessions[0]), [
    "session_id",
    "title",
    "project_path",
    "last_active",
    ...TOTALS,
  ]);
  assert.deepEqual(Object.keys(all.tools.tools[0]), [
    "tool",
    "calls",
    "failures",
    "total_ms",
    "p95_ms",
  ]);
  assert.deepEqual(Object.keys(all.cache), [
    "hit_rate",
    "expected_cache_read_pct",
    "actual_cache_read_pct",
    "prefix_rewrites",
    "cache_read_tokens",
    "prompt_tokens",
    "cost_usd",
    "baseline_cost_usd",
    "saved_usd",
    "cost_exact",
  ]);
  assert.equal(r.err, "");

  const models = JSON.parse((await s.run(["usage", "models", "--json"])).out);
  assert.deepEqual(Object.keys(models), ["models"]);
  assert.equal(models.models.length, 3);
});

Deno.test("bonsai usage filters by time zone, dates, relative spans and project", async () => {
  const s = await setup();
  await using _ = s.dir;
  const days = async (...args: string[]) => {
    const r = await s.run(["usage", "activity", "--json", ...args]);
    assert.equal(r.code, 0, r.err);
    return (JSON.parse(r.out).days as { date: string; total_tokens: number }[]).map((
      d,
    ) => `${d.date}=${d.total_tokens}`);
  };
  assert.deepEqual(await days("--tz", "UTC"), ["2026-11-28=7510", "2026-11-29=3620"]);
  assert.deepEqual(await days("--tz", "America/New_York"), ["2026-11-28=8510", "2026-11-29=2620"]);
  assert.deepEqual(await days("--tz", "America/New_York", "--since", "2026-11-29"), [
    "2026-11-29=2620",
  ]);
  assert.deepEqual(
    await days("--tz", "America/New_York", "--until", "2026-11-28"),
    ["2026-11-28=8510"],
    "a date given to --until includes that whole day",
  );
  assert.deepEqual(
    await days("--tz", "UTC", "--since", "1d"),
    ["2026-11-29=2620"],
    "a span counts back from now to the minute: C (03:30) is out, D and E (15:00) are in",
  );
  assert.deepEqual(await days("--tz", "UTC", "--since", "7d").then((d) => d.length), 2);
  assert.deepEqual(await days("--tz", "UTC", "--project", s.f.projectB), ["2026-11-29=2620"]);
  assert.deepEqual(await days("--project", join(s.dir.path, "nowhere")), []);
});

Deno.test("bonsai usage tables fit COLUMNS, honour NO_COLOR, and show floors", async () => {
  const s = await setup();
  await using _ = s.dir;
  for (const tab of ["activity", "models", "cost", "sessions", "tools", "cache"]) {
    for (const columns of ["80", "200"]) {
      const r = await s.run(["usage", tab, "--tz", "UTC"], { COLUMNS: columns });
      assert.equal(r.code, 0, r.err);
      assert.ok(!r.out.includes("\x1b["), "NO_COLOR: no escapes");
      for (const line of r.out.split("\n")) {
        assert.ok(displayWidth(line) <= Number(columns), `${tab} at ${columns}: ${line}`);
      }
    }
  }
  const activity = await s.run(["usage", "--tz", "UTC"], { COLUMNS: "100" });
  assert.match(activity.out, /Activity by day \(UTC\)/);
  assert.match(activity.out, /≥ \$0\.06 \(1 unpriced\)/);
  assert.match(activity.out, /When you work/);
  assert.match(activity.out, /Last year \(2025-11-30 to 2026-11-30\)/);
  const breakdown = await s.run(["usage", "--tz", "UTC", "--breakdown"], { COLUMNS: "120" });
  assert.match(breakdown.out, /\n\s+claude-sonnet-4-5\s/);
  const ascii = await s.run(["usage", "cost"], { LANG: "C", LC_ALL: "C" });
  assert.match(ascii.out, />= \$0\.06 \(1 unpriced\)/);
});

Deno.test("bonsai usage rejects bad input with exit 2 and touches nothing", async () => {
  const s = await setup();
  await using _ = s.dir;
  const before = await treeHash(s.home);
  const cases: [string[], RegExp][] = [
    [["usage", "weather"], /unknown tab 'weather' \(use activity, models, cost/],
    [["usage", "--since", "last tuesday"], /--since|time/i],
    [["usage", "--until", "2026-13-45"], /--until|date/i],
    [["usage", "--tz", "Mars/Olympus"], /time zone/i],
  ];
  for (const [args, message] of cases) {
    const r = await s.run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message);
    assert.equal(r.err.trim().split("\n").length, 1, "one line");
    assert.equal(r.out, "");
  }
  assert.deepEqual(await treeHash(s.home), before);
});
