import type { Dashboard, Tab, Totals } from "../../core/usage/dashboard.ts";
import { formatAge, formatCompact, formatInt, formatUsd } from "./format.ts";
import { renderCalendar, renderWeekdayHour } from "./heatmap.ts";
import type { Style } from "./style.ts";
import { renderTable } from "./table.ts";

/** How the usage tabs are drawn. */
export interface UsageLook {
  readonly style: Style;
  readonly width: number;
  readonly ascii: boolean;
  readonly timeZone: string;
  readonly now: number;
}

/** Honest money: a floor with the count of unpriced turns, never a silent zero (U4). */
export function money(
  t: Pick<Totals, "costUsd" | "costExact" | "unpricedAttempts">,
  look: UsageLook,
): string {
  const text = formatUsd(t.costUsd, { floor: !t.costExact, ascii: look.ascii });
  return t.unpricedAttempts > 0 ? `${text} (${t.unpricedAttempts} unpriced)` : text;
}

function tokenColumns(look: UsageLook) {
  return [
    { header: "TURNS", align: "right" as const },
    { header: "INPUT", align: "right" as const },
    { header: "OUTPUT", align: "right" as const },
    { header: "CACHE W", align: "right" as const, drop: 2 },
    { header: "CACHE R", align: "right" as const, drop: 3 },
    { header: "TOTAL", align: "right" as const },
    {
      header: "COST",
      align: "right" as const,
      paint: (t: string) => (t.startsWith("≥") || t.startsWith(">=") ? look.style.yellow(t) : t),
    },
  ];
}

function tokenCells(t: Totals, look: UsageLook): string[] {
  return [
    formatInt(t.turns),
    formatCompact(t.inputTokens),
    formatCompact(t.outputTokens),
    formatCompact(t.cacheWriteTokens),
    formatCompact(t.cacheReadTokens),
    formatCompact(t.totalTokens),
    money(t, look),
  ];
}

function heading(title: string, look: UsageLook): string {
  return `${look.style.bold(title)}\n`;
}

/** Activity: per-day table, totals, and the two heatmaps. */
export function renderActivity(d: Dashboard["activity"], look: UsageLook): string {
  if (d.days.length === 0) return `${look.style.dim("No usage recorded in this period.")}\n`;
  const rows: string[][] = [];
  for (const day of d.days) {
    rows.push([day.date, "", ...tokenCells(day, look)]);
    for (const m of day.models ?? []) rows.push(["", m.model, ...tokenCells(m, look)]);
  }
  const hasBreakdown = d.days.some((x) => x.models);
  const columns = [{ header: "DATE" }, {
    header: hasBreakdown ? "MODEL" : "",
    shrink: true,
    min: 8,
  }, ...tokenColumns(look)];
  const table = renderTable(
    hasBreakdown ? columns : [columns[0]!, ...columns.slice(2)],
    hasBreakdown ? rows : rows.map((r) => [r[0]!, ...r.slice(2)]),
    {
      width: look.width,
      style: look.style,
      ascii: look.ascii,
      footer: [
        hasBreakdown
          ? ["Total", "", ...tokenCells(d.totals, look)]
          : ["Total", ...tokenCells(d.totals, look)],
      ],
    },
  );
  const hm = { style: look.style, ascii: look.ascii, width: look.width };
  return [
    heading(`Activity by day (${look.timeZone})`, look) + table,
    heading("When you work (tokens by weekday and hour)", look) + renderWeekdayHour(d.heatmap, hm),
    heading(`Last year (${d.heatmap.calendar.start} to ${d.heatmap.calendar.end})`, look) +
    renderCalendar(d.heatmap, hm),
  ].join("\n");
}

/** Models: tokens, turns, cost and share per provider and model. */
export function renderModels(d: Dashboard["models"], look: UsageLook): string {
  if (d.models.length === 0) return `${look.style.dim("No usage recorded in this period.")}\n`;
  return heading("Models", look) + renderTable(
    [
      { header: "PROVIDER", drop: 4 },
      // Model names are what people read this tab for: other columns go before they are cut.
      { header: "MODEL", shrink: true, min: 26 },
      ...tokenColumns(look),
      { header: "SHARE", align: "right" },
    ],
    d.models.map((
      m,
    ) => [m.provider, m.model, ...tokenCells(m, look), `${(m.share * 100).toFixed(1)}%`]),
    { width: look.width, style: look.style, ascii: look.ascii },
  );
}

/** Cost per day, ISO week and month; floors marked. */
export function renderCost(d: Dashboard["cost"], look: UsageLook): string {
  if (d.days.length === 0) return `${look.style.dim("No usage recorded in this period.")}\n`;
  const table = (title: string, rows: Dashboard["cost"]["days"]) =>
    heading(title, look) + renderTable(
      [{ header: "PERIOD" }, { header: "TURNS", align: "right" }, {
        header: "COST",
        align: "right",
      }],
      rows.map((r) => [r.period, formatInt(r.turns), money(r, look)]),
      {
        width: look.width,
        style: look.style,
        ascii: look.ascii,
        footer: [["Total", formatInt(d.total.turns), money(d.total, look)]],
      },
    );
  const note = d.total.costExact ? "" : `${
    look.style.yellow(
      `Totals marked ${
        look.ascii ? ">=" : "≥"
      } are floors: some turns have no known price or no exact usage.`,
    )
  }\n`;
  return [
    table("Cost by month", d.months),
    table("Cost by week", d.weeks),
    table("Cost by day", d.days),
  ].join("\n") + note;
}

/** The most expensive sessions, then the biggest. */
export function renderSessions(d: Dashboard["sessions"], look: UsageLook): string {
  if (d.sessions.length === 0) return `${look.style.dim("No usage recorded in this period.")}\n`;
  return heading("Top sessions", look) + renderTable(
    [
      { header: "ID", paint: (t) => look.style.cyan(t) },
      { header: "TITLE", shrink: true, min: 12 },
      { header: "PROJECT", shrink: true, min: 10, drop: 3 },
      { header: "ACTIVE", drop: 2 },
      { header: "TURNS", align: "right" },
      { header: "TOTAL", align: "right" },
      { header: "COST", align: "right" },
    ],
    d.sessions.map((s) => [
      s.shortId,
      s.title,
      s.projectPath,
      formatAge(s.lastActive, look.now, look.timeZone),
      formatInt(s.turns),
      formatCompact(s.totalTokens),
      money(s, look),
    ]),
    { width: look.width, style: look.style, ascii: look.ascii },
  );
}

/** Tool calls, failures and durations. */
export function renderTools(d: Dashboard["tools"], look: UsageLook): string {
  if (d.tools.length === 0) return `${look.style.dim("No tool calls recorded in this period.")}\n`;
  const secs = (
    ms: number | null,
  ) => (ms === null ? "-" : ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`);
  return heading("Tools", look) + renderTable(
    [
      { header: "TOOL" },
      { header: "CALLS", align: "right" },
      {
        header: "FAILED",
        align: "right",
        paint: (t) => (t.startsWith("0 ") || t === "0" ? t : look.style.red(t)),
      },
      { header: "TOTAL TIME", align: "right" },
      { header: "P95", align: "right" },
    ],
    d.tools.map((t) => [
      t.tool,
      formatInt(t.calls),
      t.failures ? `${formatInt(t.failures)} (${Math.round((t.failures / t.calls) * 100)}%)` : "0",
      secs(t.totalMs),
      secs(t.p95Ms),
    ]),
    { width: look.width, style: look.style, ascii: look.ascii },
  );
}

/** Cache effectiveness: hit rate, predicted vs actual reads, prefix rewrites, money saved. */
export function renderCache(d: Dashboard["cache"], look: UsageLook): string {
  const pct = (v: number | null) => (v === null ? "-" : `${v.toFixed(1)}%`);
  const rows = [
    [
      "hit rate",
      `${(d.hitRate * 100).toFixed(1)}% (${formatCompact(d.cacheReadTokens)} of ${
        formatCompact(d.promptTokens)
      } input tokens read from cache)`,
    ],
    ["expected reads", pct(d.expectedCacheReadPct)],
    ["actual reads", pct(d.actualCacheReadPct)],
    ["prefix rewrites", formatInt(d.prefixRewrites)],
    [
      "cost",
      `${formatUsd(d.costUsd, { floor: !d.costExact, ascii: look.ascii })} (without cache: ${
        formatUsd(d.baselineCostUsd)
      })`,
    ],
    [
      "saved",
      `${formatUsd(d.savedUsd)}${
        d.baselineCostUsd > 0 ? ` (${((d.savedUsd / d.baselineCostUsd) * 100).toFixed(1)}%)` : ""
      }`,
    ],
  ];
  return heading("Prompt cache", look) +
    rows.map(([k, v]) => `  ${look.style.dim(k!.padEnd(16))} ${v}`).join("\n") + "\n";
}

const RENDER: Record<Tab, (d: Dashboard, look: UsageLook) => string> = {
  activity: (d, l) => renderActivity(d.activity, l),
  models: (d, l) => renderModels(d.models, l),
  cost: (d, l) => renderCost(d.cost, l),
  sessions: (d, l) => renderSessions(d.sessions, l),
  tools: (d, l) => renderTools(d.tools, l),
  cache: (d, l) => renderCache(d.cache, l),
};

/** One tab of the dashboard, for `bonsai usage` and `/usage`. */
export function renderUsageTab(tab: Tab, d: Dashboard, look: UsageLook): string {
  return RENDER[tab](d, look);
}
