import assert from "node:assert/strict";
import { buildDashboard, type Dashboard } from "../../core/usage/dashboard.ts";
import { renderCalendar, renderWeekdayHour } from "../../tui/render/heatmap.ts";
import { createStyle } from "../../tui/render/style.ts";
import {
  renderActivity,
  renderCache,
  renderCost,
  renderModels,
  renderSessions,
  renderTools,
  type UsageLook,
} from "../../tui/render/usage_report.ts";
import { displayWidth } from "../../tui/render/width.ts";
import { openTestDb } from "../support/db.ts";
import { assertSnapshot } from "../support/snapshot.ts";
import { tempDir } from "../support/temp.ts";
import { seedUsage } from "../support/usage_ledger.ts";

const NY = "America/New_York";
const NOW = Date.UTC(2026, 10, 30, 12, 0);

async function dashboard(): Promise<Dashboard> {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  using _ = db;
  seedUsage(db, ids, "/work");
  return buildDashboard(db, {}, { timeZone: NY, now: NOW });
}

/** A year of synthetic daily activity, so every shade and every month label shows. */
function yearHeatmap(): Dashboard["activity"]["heatmap"] {
  const end = "2026-11-30";
  const weeks = [];
  const start = Date.UTC(2025, 10, 30);
  for (let w = 0; w < 53; w++) {
    const week = [];
    for (let d = 0; d < 7; d++) {
      const t = start + (w * 7 + d) * 86_400_000;
      const date = new Date(t).toISOString().slice(0, 10);
      if (date > end) {
        week.push(null);
        continue;
      }
      // Quiet weekends, busy midweek, a holiday gap, growing over the year.
      const busy = d === 0 || d === 6 ? 0 : ((w * 7 + d) * 7919) % 5 * (1000 + w * 200);
      const gap = w >= 30 && w < 33;
      week.push({ date, tokens: gap ? 0 : busy, turns: gap ? 0 : Math.ceil(busy / 1000) });
    }
    weeks.push(week);
  }
  const tokens = Array.from(
    { length: 7 },
    (_, wd) =>
      Array.from(
        { length: 24 },
        (_, h) =>
          wd === 0 || wd === 6
            ? (h === 11 ? 300 : 0)
            : h >= 9 && h <= 18
            ? (h * 37 + wd * 11) % 9 * 1000
            : 0,
      ),
  );
  return {
    weekdayHour: { tokens, turns: tokens.map((r) => r.map((v) => Math.ceil(v / 1000))) },
    calendar: { start: "2025-11-30", end, weeks },
  };
}

function look(width: number, mode: "color" | "plain" | "ascii"): UsageLook {
  return {
    style: createStyle(mode === "color"),
    width,
    ascii: mode === "ascii",
    timeZone: NY,
    now: NOW,
  };
}

function assertFits(text: string, width: number) {
  for (const line of text.split("\n")) {
    assert.ok(displayWidth(line) <= width, `line wider than ${width}: ${JSON.stringify(line)}`);
  }
}

for (const width of [80, 200]) {
  for (const mode of ["plain", "ascii"] as const) {
    Deno.test(`heatmaps at ${width} columns (${mode}) match the snapshot and fit`, async () => {
      const hm = yearHeatmap();
      const l = look(width, mode);
      const grid = renderWeekdayHour(hm, l);
      const cal = renderCalendar(hm, l);
      assertFits(grid, width);
      assertFits(cal, width);
      if (mode === "ascii") assert.match(grid + cal, /^[\x20-\x7e\n]*$/, "ASCII only");
      await assertSnapshot(`heatmap-${width}-${mode}`, `${grid}\n${cal}`);
    });
  }
}

Deno.test("heatmaps shrink to narrow terminals and colour only when allowed", () => {
  const hm = yearHeatmap();
  for (const width of [40, 60, 79, 100, 120]) {
    assertFits(renderWeekdayHour(hm, look(width, "plain")), width);
    assertFits(renderCalendar(hm, look(width, "plain")), width);
    assertFits(renderCalendar(hm, look(width, "color")), width);
  }
  const coloured = renderCalendar(hm, look(120, "color"));
  assert.ok(coloured.includes("\x1b[38;5;40m"), "the busiest days use the brightest green");
  assert.ok(!renderCalendar(hm, look(120, "plain")).includes("\x1b["), "NO_COLOR: no escapes");
  const cal = renderCalendar(hm, look(200, "plain"));
  assert.match(cal, /Dec.*Jan.*Feb.*Mar.*Apr.*May.*Jun.*Jul.*Aug.*Sep.*Oct.*Nov/);
  assert.match(cal, /none/);
});

Deno.test("usage tabs render the hand-built ledger with floors and unpriced counts (snapshots)", async () => {
  const d = await dashboard();
  for (const width of [80, 200]) {
    const l = look(width, "plain");
    const text = [
      renderActivity(d.activity, l),
      renderModels(d.models, l),
      renderCost(d.cost, l),
      renderSessions(d.sessions, l),
      renderTools(d.tools, l),
      renderCache(d.cache, l),
    ].join("\n");
    assertFits(text, width);
    assert.match(text, /≥ \$0\.06 \(1 unpriced\)/, "the total is a floor with its unpriced count");
    assert.match(text, / \$0\.06\n/, "an exact day is not marked");
    assert.match(text, /are floors/);
    await assertSnapshot(`usage-tabs-${width}`, text);
  }
  const ascii = renderCost(d.cost, look(80, "ascii"));
  assert.match(ascii, />= \$0\.06 \(1 unpriced\)/);
  assert.match(ascii, /^[\x20-\x7e\n]*$/);
});

Deno.test("an empty period says so instead of drawing empty tables", async () => {
  await using dir = await tempDir();
  const { db } = await openTestDb(dir.path);
  using _ = db;
  const d = buildDashboard(db, {}, { timeZone: "UTC", now: NOW });
  const l = look(80, "plain");
  assert.match(renderActivity(d.activity, l), /No usage recorded/);
  assert.match(renderTools(d.tools, l), /No tool calls recorded/);
  assert.match(renderCache(d.cache, l), /hit rate\s+0\.0%/);
});
