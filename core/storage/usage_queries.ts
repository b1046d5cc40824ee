import type { Db, SqlValue } from "./db.ts";

/** Which ledger rows a dashboard covers. */
export interface UsageFilter {
  /** Inclusive, epoch ms. */
  readonly since?: number;
  /** Exclusive, epoch ms. */
  readonly until?: number;
  readonly projectId?: number;
}

/** Summed usage (one rollup group). */
export interface UsageSums {
  readonly rows: number;
  readonly turns: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly reasoningTokens: number;
  readonly costUsd: number;
  readonly baselineCostUsd: number;
  readonly unpricedTurns: number;
  readonly inexactTurns: number;
  readonly expectedPctSum: number;
  readonly expectedPctCount: number;
  readonly actualPctSum: number;
  readonly actualPctCount: number;
  readonly prefixRewrites: number;
}

const SUMS =
  `sum(rows) AS rows, sum(turns) AS turns, sum(input_tokens) AS input, sum(output_tokens) AS output,
  sum(cache_read_tokens) AS cache_read, sum(cache_write_5m_tokens) AS cw5, sum(cache_write_1h_tokens) AS cw1,
  sum(reasoning_tokens) AS reasoning, sum(cost_usd) AS cost, sum(baseline_cost_usd) AS baseline,
  sum(unpriced_turns) AS unpriced, sum(inexact_turns) AS inexact, sum(expected_pct_sum) AS eps,
  sum(expected_pct_count) AS epc, sum(actual_pct_sum) AS aps, sum(actual_pct_count) AS apc,
  sum(prefix_rewrites) AS rewrites`;

function sums(r: Record<string, number | string | null>): UsageSums {
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    rows: n("rows"),
    turns: n("turns"),
    inputTokens: n("input"),
    outputTokens: n("output"),
    cacheReadTokens: n("cache_read"),
    cacheWrite5mTokens: n("cw5"),
    cacheWrite1hTokens: n("cw1"),
    reasoningTokens: n("reasoning"),
    costUsd: n("cost"),
    baselineCostUsd: n("baseline"),
    unpricedTurns: n("unpriced"),
    inexactTurns: n("inexact"),
    expectedPctSum: n("eps"),
    expectedPctCount: n("epc"),
    actualPctSum: n("aps"),
    actualPctCount: n("apc"),
    prefixRewrites: n("rewrites"),
  };
}

function where(filter: UsageFilter, column = "bucket"): { sql: string; params: SqlValue[] } {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  if (filter.since !== undefined) {
    // Buckets are quarter hours: a bound inside one takes the whole bucket only if it starts there.
    clauses.push(`${column} >= ?`);
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    clauses.push(`${column} < ?`);
    params.push(filter.until);
  }
  if (filter.projectId !== undefined) {
    clauses.push("project_id = ?");
    params.push(filter.projectId);
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

/** Dashboard queries over the usage rollups (never the ledger itself). */
export class UsageQueries {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The first and last quarter hour with usage, or null when there is none. */
  range(filter: UsageFilter): { first: number; last: number } | null {
    const w = where(filter);
    const r = this.#db.prepare(
      `SELECT min(bucket) AS first, max(bucket) AS last FROM usage_rollup ${w.sql}`,
    ).get(...w.params) as { first: number | null; last: number | null };
    return r.first === null || r.last === null ? null : { first: r.first, last: r.last };
  }

  /**
   * Sums per local day and model. `offset` is a SQL expression of `bucket` giving the zone's
   * offset in ms at that quarter hour; days are counted from 1970-01-01 (local).
   */
  byLocalDayAndModel(
    filter: UsageFilter,
    offset: string,
  ): (UsageSums & { day: number; provider: string; model: string })[] {
    const w = where(filter);
    const rows = this.#db.prepare(
      `SELECT (bucket + ${offset}) / 86400000 AS day, provider, model, ${SUMS}
       FROM usage_rollup ${w.sql} GROUP BY day, provider, model ORDER BY day`,
    ).all(...w.params) as Record<string, number | string>[];
    return rows.map((r) => ({
      ...sums(r),
      day: Number(r.day),
      provider: String(r.provider),
      model: String(r.model),
    }));
  }

  /** Tokens and turns per local weekday (0 = Sunday) and hour; `offset` as above. */
  byWeekdayHour(
    filter: UsageFilter,
    offset: string,
  ): { weekday: number; hour: number; tokens: number; turns: number }[] {
    const w = where(filter);
    // 1970-01-01 was a Thursday (weekday 4).
    return this.#db.prepare(
      `SELECT ((bucket + ${offset}) / 86400000 + 4) % 7 AS weekday,
         ((bucket + ${offset}) % 86400000) / 3600000 AS hour,
         sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens
           + cache_write_1h_tokens) AS tokens, sum(turns) AS turns
       FROM usage_rollup ${w.sql} GROUP BY weekday, hour`,
    ).all(...w.params) as { weekday: number; hour: number; tokens: number; turns: number }[];
  }

  /** Sums per session (with its title and project), most expensive first, then most tokens. */
  bySession(
    filter: UsageFilter,
    limit: number,
  ): (UsageSums & {
    sessionId: string;
    title: string;
    projectPath: string;
    firstBucket: number;
    lastBucket: number;
  })[] {
    const w = where(filter, "r.bucket");
    const rows = this.#db.prepare(
      `SELECT r.session_id, s.title, p.root_path, min(r.bucket) AS first_bucket, max(r.bucket) AS last_bucket, ${
        SUMS.replaceAll("sum(", "sum(r.")
      }
       FROM usage_rollup r JOIN sessions s ON s.id = r.session_id JOIN projects p ON p.id = s.project_id
       ${w.sql.replace("project_id", "r.project_id")}
       GROUP BY r.session_id ORDER BY sum(r.cost_usd) DESC,
         sum(r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_write_5m_tokens + r.cache_write_1h_tokens) DESC
       LIMIT ?`,
    ).all(...w.params, limit) as Record<string, number | string>[];
    return rows.map((r) => ({
      ...sums(r),
      sessionId: String(r.session_id),
      title: String(r.title),
      projectPath: String(r.root_path),
      firstBucket: Number(r.first_bucket),
      lastBucket: Number(r.last_bucket),
    }));
  }

  /**
   * Tool calls per tool: calls, failures and total duration from the tool rollups, and the
   * exact 95th-percentile duration, read from the duration index walked down from the
   * slowest call (about 5 % of a tool's calls are visited, whatever the period).
   */
  tools(
    filter: UsageFilter,
  ): { tool: string; calls: number; failures: number; totalMs: number; p95Ms: number | null }[] {
    const w = where(filter);
    const rows = this.#db.prepare(
      `SELECT tool_name AS tool, sum(calls) AS calls, sum(failures) AS failures,
         sum(total_ms) AS total_ms, sum(timed) AS timed
       FROM tool_rollup ${w.sql} GROUP BY tool_name HAVING sum(calls) > 0
       ORDER BY calls DESC, tool`,
    ).all(...w.params) as {
      tool: string;
      calls: number;
      failures: number;
      total_ms: number;
      timed: number;
    }[];
    // The rollups hold calls whose quarter hour starts inside the period: the same calls
    // as started_at in [since, until) with both bounds rounded up to a quarter hour.
    const clauses = ["tool_name = ?", "duration_ms IS NOT NULL"];
    const params: SqlValue[] = [];
    if (filter.since !== undefined) {
      clauses.push("started_at >= ?");
      params.push(ceilQuarter(filter.since));
    }
    if (filter.until !== undefined) {
      clauses.push("started_at < ?");
      params.push(ceilQuarter(filter.until));
    }
    if (filter.projectId !== undefined) {
      clauses.push("project_id = ?");
      params.push(filter.projectId);
    }
    const slowest = this.#db.prepare(
      `SELECT duration_ms AS d FROM tool_calls INDEXED BY tool_calls_by_duration
       WHERE ${clauses.join(" AND ")} ORDER BY duration_ms DESC LIMIT 1 OFFSET ?`,
    );
    return rows.map((r) => {
      // Nearest rank: the ceil(0.95 n)-th fastest is the (n - ceil(0.95 n) + 1)-th slowest.
      const fromTop = r.timed - Math.ceil(r.timed * 0.95);
      const row = r.timed > 0
        ? slowest.get(r.tool, ...params, fromTop) as { d: number } | undefined
        : undefined;
      return {
        tool: r.tool,
        calls: r.calls,
        failures: r.failures,
        totalMs: r.total_ms,
        p95Ms: row?.d ?? null,
      };
    });
  }
}

const QUARTER_MS = 900_000;

function ceilQuarter(ms: number): number {
  return Math.ceil(ms / QUARTER_MS) * QUARTER_MS;
}
