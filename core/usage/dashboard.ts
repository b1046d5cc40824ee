import type { Db } from "../storage/db.ts";
import { SessionStore } from "../storage/sessions.ts";
import { type UsageFilter, UsageQueries, type UsageSums } from "../storage/usage_queries.ts";
import { addDays, weekdayOf, ZoneCalendar } from "../time.ts";

/** Token and cost totals of a group of turns (U2, U4). Cost is a floor when `costExact` is false. */
export interface Totals {
  readonly turns: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheReadTokens: number;
  readonly reasoningTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
  readonly costExact: boolean;
  readonly unpricedAttempts: number;
}

/** A model's share of usage. */
export interface ModelTotals extends Totals {
  readonly provider: string;
  readonly model: string;
  /** Share of all tokens in the period, 0–1. */
  readonly share: number;
}

/** One day of the activity tab. */
export interface DayTotals extends Totals {
  readonly date: string;
  /** Per model, with --breakdown. */
  readonly models?: readonly (Totals & { provider: string; model: string })[];
}

/** Cells of the activity heatmaps. */
export interface Heatmap {
  /** tokens[weekday 0=Sunday][hour 0-23] and turns likewise. */
  readonly weekdayHour: { readonly tokens: number[][]; readonly turns: number[][] };
  /** The last 53 weeks (oldest first), seven days each starting on Sunday; null before/after the range. */
  readonly calendar: {
    readonly start: string;
    readonly end: string;
    readonly weeks:
      readonly (readonly ({ date: string; tokens: number; turns: number } | null)[])[];
  };
}

/** Everything `bonsai usage` shows. */
export interface Dashboard {
  readonly activity: { days: DayTotals[]; totals: Totals; heatmap: Heatmap };
  readonly models: { models: ModelTotals[] };
  readonly cost: {
    days:
      (Pick<Totals, "costUsd" | "costExact" | "unpricedAttempts" | "turns"> & { period: string })[];
    weeks:
      (Pick<Totals, "costUsd" | "costExact" | "unpricedAttempts" | "turns"> & { period: string })[];
    months:
      (Pick<Totals, "costUsd" | "costExact" | "unpricedAttempts" | "turns"> & { period: string })[];
    total: Pick<Totals, "costUsd" | "costExact" | "unpricedAttempts" | "turns">;
  };
  readonly sessions: {
    sessions: (Totals & {
      sessionId: string;
      /** The shortest unambiguous id prefix (8 characters or more). */
      shortId: string;
      title: string;
      projectPath: string;
      lastActive: number;
    })[];
  };
  readonly tools: {
    tools: {
      tool: string;
      calls: number;
      failures: number;
      totalMs: number;
      p95Ms: number | null;
    }[];
  };
  readonly cache: {
    hitRate: number;
    expectedCacheReadPct: number | null;
    actualCacheReadPct: number | null;
    prefixRewrites: number;
    cacheReadTokens: number;
    promptTokens: number;
    costUsd: number;
    baselineCostUsd: number;
    savedUsd: number;
    costExact: boolean;
  };
}

/** The dashboard's tabs (U2), in the order they are shown. */
export const TABS = ["activity", "models", "cost", "sessions", "tools", "cache"] as const;
/** One of the dashboard's tabs. */
export type Tab = (typeof TABS)[number];

/** Which model a row is about. */
interface ModelKey {
  readonly provider: string;
  readonly model: string;
}

/** Options of a dashboard. */
export interface DashboardOptions {
  readonly timeZone: string;
  /** The instant "now" (the calendar ends at the local day containing it, or at `until`). */
  readonly now: number;
  readonly breakdown?: boolean;
  readonly sessionLimit?: number;
  /** Only these tabs are filled in (the others are empty): one tab asked for costs less. */
  readonly tabs?: readonly Tab[];
}

const EMPTY: Totals = {
  turns: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheWriteTokens: 0,
  cacheReadTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  costUsd: 0,
  costExact: true,
  unpricedAttempts: 0,
};

/** Totals from rollup sums. A turn counts once it completed; failed attempts add tokens only. */
export function totalsOf(s: UsageSums): Totals {
  const cacheWrite = s.cacheWrite5mTokens + s.cacheWrite1hTokens;
  return {
    turns: s.turns,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    cacheWriteTokens: cacheWrite,
    cacheReadTokens: s.cacheReadTokens,
    reasoningTokens: s.reasoningTokens,
    totalTokens: s.inputTokens + s.outputTokens + cacheWrite + s.cacheReadTokens,
    costUsd: round(s.costUsd),
    costExact: s.unpricedAttempts === 0 && s.inexactTurns === 0,
    unpricedAttempts: s.unpricedAttempts,
  };
}

/** Adds totals. */
export function addTotals(a: Totals, b: Totals): Totals {
  return {
    turns: a.turns + b.turns,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: round(a.costUsd + b.costUsd),
    costExact: a.costExact && b.costExact,
    unpricedAttempts: a.unpricedAttempts + b.unpricedAttempts,
  };
}

/**
 * Builds every tab from the usage rollups. Local days and hours are computed in SQL from the
 * zone's offsets over the period (a CASE over its transitions), so only a few rows per day
 * come back however long the history is.
 */
export function buildDashboard(db: Db, filter: UsageFilter, options: DashboardOptions): Dashboard {
  const q = new UsageQueries(db);
  const cal = new ZoneCalendar(options.timeZone);
  const range = q.range(filter);
  const segments = range ? cal.segments(range.first, range.last) : [];
  const offset = offsetSql(segments, "t");
  // Zones off the whole hour (India, Nepal, ...) need quarter-hour sums.
  const quarterHours = segments.some((s) => s.offset % 3_600_000 !== 0);
  const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
  const days = new Map<string, { totals: Totals; models?: (Totals & ModelKey)[] }>();
  let total = EMPTY;
  let cacheSums = { eps: 0, epc: 0, aps: 0, apc: 0, rewrites: 0, baseline: 0, pricedCost: 0 };
  for (const d of range ? q.byLocalDay(filter, offset, quarterHours) : []) {
    const t = totalsOf(d);
    days.set(dateOf(d.day), { totals: t });
    total = addTotals(total, t);
    cacheSums = {
      eps: cacheSums.eps + d.expectedPctSum,
      epc: cacheSums.epc + d.expectedPctCount,
      aps: cacheSums.aps + d.actualPctSum,
      apc: cacheSums.apc + d.actualPctCount,
      rewrites: cacheSums.rewrites + d.prefixRewrites,
      baseline: cacheSums.baseline + d.baselineCostUsd,
      pricedCost: cacheSums.pricedCost + d.costUsd,
    };
  }
  if (options.breakdown && range) {
    for (const m of q.byLocalDayAndModel(filter, offset, quarterHours)) {
      const day = days.get(dateOf(m.day));
      if (!day) continue;
      (day.models ??= []).push({ ...totalsOf(m), provider: m.provider, model: m.model });
    }
  }
  const wanted = (tab: Tab) => !options.tabs || options.tabs.includes(tab);
  const models = (range && wanted("models") ? q.byModel(filter) : []).map((m) => ({
    ...totalsOf(m),
    provider: m.provider,
    model: m.model,
  }));
  const tokens = Array.from({ length: 7 }, () => new Array<number>(24).fill(0));
  const turns = Array.from({ length: 7 }, () => new Array<number>(24).fill(0));
  for (
    const cell of range && wanted("activity") ? q.byWeekdayHour(filter, offset, quarterHours) : []
  ) {
    tokens[cell.weekday]![cell.hour]! += cell.tokens;
    turns[cell.weekday]![cell.hour]! += cell.turns;
  }
  const dayRows: DayTotals[] = [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, d]) => ({
    date,
    ...d.totals,
    ...(options.breakdown
      ? { models: (d.models ?? []).sort((a, b) => b.totalTokens - a.totalTokens) }
      : {}),
  }));
  const modelRows = models
    .sort((a, b) => b.costUsd - a.costUsd || b.totalTokens - a.totalTokens)
    .map((m) => ({ ...m, share: total.totalTokens ? m.totalTokens / total.totalTokens : 0 }));
  const endDate = cal.fields(Math.max(0, (filter.until ?? options.now + 1) - 1)).date;
  const prompt = total.inputTokens + total.cacheReadTokens + total.cacheWriteTokens;
  const topSessions = wanted("sessions") ? q.bySession(filter, options.sessionLimit ?? 20) : [];
  const shortIds = new SessionStore(db).shortIds(topSessions.map((s) => s.sessionId));
  return {
    activity: {
      days: dayRows,
      totals: total,
      heatmap: { weekdayHour: { tokens, turns }, calendar: calendar(dayRows, endDate) },
    },
    models: { models: modelRows },
    cost: costPeriods(dayRows, total),
    sessions: {
      sessions: topSessions.map((s) => ({
        ...totalsOf(s),
        sessionId: s.sessionId,
        shortId: shortIds.get(s.sessionId) ?? s.sessionId,
        title: s.title,
        projectPath: s.projectPath,
        lastActive: s.lastBucket,
      })),
    },
    tools: { tools: wanted("tools") ? q.tools(filter) : [] },
    cache: {
      hitRate: prompt ? total.cacheReadTokens / prompt : 0,
      expectedCacheReadPct: cacheSums.epc ? round(cacheSums.eps / cacheSums.epc, 1) : null,
      actualCacheReadPct: cacheSums.apc ? round(cacheSums.aps / cacheSums.apc, 1) : null,
      prefixRewrites: cacheSums.rewrites,
      cacheReadTokens: total.cacheReadTokens,
      promptTokens: prompt,
      costUsd: total.costUsd,
      baselineCostUsd: round(cacheSums.baseline),
      savedUsd: round(Math.max(0, cacheSums.baseline - cacheSums.pricedCost)),
      costExact: total.costExact,
    },
  };
}

/** 53 weeks ending with the week of `end`, Sunday first; days outside the data are zero. */
function calendar(days: readonly DayTotals[], end: string): Heatmap["calendar"] {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const lastSunday = addDays(end, -weekdayOf(end));
  const start = addDays(lastSunday, -52 * 7);
  const weeks: ({ date: string; tokens: number; turns: number } | null)[][] = [];
  for (let w = 0; w < 53; w++) {
    const week: ({ date: string; tokens: number; turns: number } | null)[] = [];
    for (let d = 0; d < 7; d++) {
      const date = addDays(start, w * 7 + d);
      if (date > end) {
        week.push(null);
        continue;
      }
      const row = byDate.get(date);
      week.push({ date, tokens: row?.totalTokens ?? 0, turns: row?.turns ?? 0 });
    }
    weeks.push(week);
  }
  return { start, end, weeks };
}

function costPeriods(days: readonly DayTotals[], total: Totals): Dashboard["cost"] {
  type Row = Pick<Totals, "costUsd" | "costExact" | "unpricedAttempts" | "turns"> & {
    period: string;
  };
  const group = (key: (date: string) => string): Row[] => {
    const out = new Map<string, Row>();
    for (const d of days) {
      const k = key(d.date);
      const r = out.get(k) ??
        { period: k, costUsd: 0, costExact: true, unpricedAttempts: 0, turns: 0 };
      out.set(k, {
        period: k,
        costUsd: round(r.costUsd + d.costUsd),
        costExact: r.costExact && d.costExact,
        unpricedAttempts: r.unpricedAttempts + d.unpricedAttempts,
        turns: r.turns + d.turns,
      });
    }
    return [...out.values()];
  };
  return {
    days: group((d) => d),
    weeks: group((d) => isoWeek(d)),
    months: group((d) => d.slice(0, 7)),
    total: {
      costUsd: total.costUsd,
      costExact: total.costExact,
      unpricedAttempts: total.unpricedAttempts,
      turns: total.turns,
    },
  };
}

/** A SQL expression of `column` (an instant): the zone's offset (ms) at that instant. */
function offsetSql(segments: readonly { from: number; offset: number }[], column: string): string {
  const int = (n: number) => {
    if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${n}`);
    return String(n);
  };
  if (segments.length === 0) return "0";
  if (segments.length === 1) return int(segments[0]!.offset);
  const whens = segments.slice(1).map((s, i) =>
    `WHEN ${column} < ${int(s.from)} THEN ${int(segments[i]!.offset)}`
  );
  return `(CASE ${whens.join(" ")} ELSE ${int(segments[segments.length - 1]!.offset)} END)`;
}

/** ISO 8601 week of a date, "YYYY-Www". */
export function isoWeek(date: string): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  const day = (t.getUTCDay() + 6) % 7; // Monday = 0
  t.setUTCDate(t.getUTCDate() - day + 3); // Thursday of this week
  const firstThursday = new Date(Date.UTC(t.getUTCFullYear(), 0, 4));
  const week = 1 +
    Math.round(
      ((t.getTime() - firstThursday.getTime()) / 86_400_000 - 3 +
        ((firstThursday.getUTCDay() + 6) % 7)) / 7,
    );
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

function round(n: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
