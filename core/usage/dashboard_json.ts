import { type Dashboard, type Tab, TABS, type Totals } from "./dashboard.ts";

// The stable JSON of `bonsai usage --json` (snake_case), documented in README.md.

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Token and cost fields of a totals object. */
export function totalsJson(t: Totals) {
  return {
    turns: t.turns,
    input_tokens: t.inputTokens,
    output_tokens: t.outputTokens,
    cache_write_tokens: t.cacheWriteTokens,
    cache_read_tokens: t.cacheReadTokens,
    reasoning_tokens: t.reasoningTokens,
    total_tokens: t.totalTokens,
    cost_usd: t.costUsd,
    cost_exact: t.costExact,
    unpriced_attempts: t.unpricedAttempts,
  };
}

/** Each tab's JSON. */
export const tabJson = {
  activity: (d: Dashboard["activity"]) => ({
    days: d.days.map((day) => ({
      date: day.date,
      ...totalsJson(day),
      ...(day.models
        ? {
          models: day.models.map((m) => ({
            provider: m.provider,
            model: m.model,
            ...totalsJson(m),
          })),
        }
        : {}),
    })),
    totals: totalsJson(d.totals),
    heatmap: {
      weekday_hour: {
        weekdays: WEEKDAYS,
        tokens: d.heatmap.weekdayHour.tokens,
        turns: d.heatmap.weekdayHour.turns,
      },
      calendar: {
        start: d.heatmap.calendar.start,
        end: d.heatmap.calendar.end,
        weeks: d.heatmap.calendar.weeks,
      },
    },
  }),
  models: (d: Dashboard["models"]) => ({
    models: d.models.map((m) => ({
      provider: m.provider,
      model: m.model,
      ...totalsJson(m),
      share: round(m.share),
    })),
  }),
  cost: (d: Dashboard["cost"]) => {
    const row = (r: Dashboard["cost"]["days"][number]) => ({
      period: r.period,
      turns: r.turns,
      cost_usd: r.costUsd,
      cost_exact: r.costExact,
      unpriced_attempts: r.unpricedAttempts,
    });
    return {
      days: d.days.map(row),
      weeks: d.weeks.map(row),
      months: d.months.map(row),
      total: {
        turns: d.total.turns,
        cost_usd: d.total.costUsd,
        cost_exact: d.total.costExact,
        unpriced_attempts: d.total.unpricedAttempts,
      },
    };
  },
  sessions: (d: Dashboard["sessions"]) => ({
    sessions: d.sessions.map((s) => ({
      session_id: s.sessionId,
      title: s.title,
      project_path: s.projectPath,
      last_active: new Date(s.lastActive).toISOString(),
      ...totalsJson(s),
    })),
  }),
  tools: (d: Dashboard["tools"]) => ({
    tools: d.tools.map((t) => ({
      tool: t.tool,
      calls: t.calls,
      failures: t.failures,
      total_ms: t.totalMs,
      p95_ms: t.p95Ms,
    })),
  }),
  cache: (d: Dashboard["cache"]) => ({
    hit_rate: round(d.hitRate),
    expected_cache_read_pct: d.expectedCacheReadPct,
    actual_cache_read_pct: d.actualCacheReadPct,
    prefix_rewrites: d.prefixRewrites,
    cache_read_tokens: d.cacheReadTokens,
    prompt_tokens: d.promptTokens,
    cost_usd: d.costUsd,
    baseline_cost_usd: d.baselineCostUsd,
    saved_usd: d.savedUsd,
    cost_exact: d.costExact,
  }),
};

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** `bonsai usage --json`: one tab's JSON, or every tab's keyed by name. */
export function dashboardJson(dashboard: Dashboard, tab?: Tab): unknown {
  return tab
    ? tabJson[tab](dashboard[tab] as never)
    : Object.fromEntries(TABS.map((t) => [t, tabJson[t](dashboard[t] as never)]));
}
