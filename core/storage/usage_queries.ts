import { type Db, hasIndex, type SqlValue } from "./db.ts";
import { DURATION_INDEX } from "./tool_calls.ts";

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
  readonly unpricedAttempts: number;
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
    unpricedAttempts: n("unpriced"),
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

const QUARTER_MS = 900_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The rollup columns of usage sums. */
const USAGE_COLUMNS = `rows, turns, input_tokens, output_tokens, cache_read_tokens,
  cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd,
  unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum,
  actual_pct_count, prefix_rewrites`;

/** A rollup table at one time resolution: which column holds the start of its unit. */
interface Level {
  readonly table: string;
  readonly time: string;
  readonly unit: number;
}

const USAGE_QUARTER: Level = { table: "usage_rollup", time: "bucket", unit: QUARTER_MS };
const USAGE_HOUR_MODEL: Level = { table: "usage_hour", time: "hour", unit: HOUR_MS };
const USAGE_HOUR: Level = { table: "usage_hour_sum", time: "hour", unit: HOUR_MS };
const USAGE_DAY_MODEL: Level = { table: "usage_day_model", time: "day", unit: DAY_MS };
const TOOL_QUARTER: Level = { table: "tool_rollup", time: "bucket", unit: QUARTER_MS };
const TOOL_DAY: Level = { table: "tool_day", time: "day", unit: DAY_MS };

/**
 * The rows covering a period, as one derived table whose `t` is the start of each row's
 * unit: whole units from the coarsest level, what is left at the edges from the next, down
 * to quarter hours. Quarter hours are in when they start inside [since, until) (as `where`
 * has it). A project filter reads the finest level alone (only it knows projects).
 */
function covering(
  filter: UsageFilter,
  levels: readonly Level[],
  columns: string,
): { sql: string; params: SqlValue[] } {
  const select = (level: Level, cond: string) =>
    `SELECT ${level.time} AS t, ${columns} FROM ${level.table} ${cond ? `WHERE ${cond}` : ""}`;
  const finest = levels[levels.length - 1]!;
  if (filter.projectId !== undefined) {
    const w = where(filter, finest.time);
    return { sql: select(finest, w.sql.replace(/^WHERE /, "")), params: w.params };
  }
  const parts: { sql: string; params: SqlValue[] }[] = [];
  const cover = (from: number | undefined, to: number | undefined, i: number) => {
    const level = levels[i]!;
    const lo = from === undefined ? undefined : Math.ceil(from / level.unit) * level.unit;
    const hi = to === undefined ? undefined : Math.floor(to / level.unit) * level.unit;
    const last = i === levels.length - 1;
    if (!last && lo !== undefined && hi !== undefined && lo >= hi) return cover(from, to, i + 1);
    const cond: string[] = [];
    const params: SqlValue[] = [];
    if (lo !== undefined) {
      cond.push(`${level.time} >= ?`);
      params.push(last ? from! : lo);
    }
    if (hi !== undefined) {
      cond.push(`${level.time} < ?`);
      params.push(last ? to! : hi);
    }
    parts.push({ sql: select(level, cond.join(" AND ")), params });
    if (last) return;
    if (from !== undefined && from < lo!) cover(from, lo, i + 1);
    if (to !== undefined && hi! < to) cover(hi, to, i + 1);
  };
  cover(filter.since, filter.until, 0);
  return {
    sql: parts.map((p) => p.sql).join(" UNION ALL "),
    params: parts.flatMap((p) => p.params),
  };
}

/** Dashboard queries over the usage rollups (never the ledger itself). */
export class UsageQueries {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The first and last instant with usage (to the hour, or quarter hour for a project), or null. */
  range(filter: UsageFilter): { first: number; last: number } | null {
    let r: { first: number | null; last: number | null };
    if (filter.projectId !== undefined) {
      const w = where(filter);
      r = this.#db.prepare(
        `SELECT min(bucket) AS first, max(bucket) + ${
          QUARTER_MS - 1
        } AS last FROM usage_rollup ${w.sql}`,
      ).get(...w.params) as typeof r;
    } else {
      r = this.#db.prepare(
        `SELECT min(hour) AS first, max(hour) + ${HOUR_MS - 1} AS last FROM usage_hour_sum`,
      ).get() as typeof r;
    }
    if (r.first === null || r.last === null) return null;
    const first = Math.max(r.first, filter.since ?? r.first);
    const last = Math.min(r.last, (filter.until ?? r.last + 1) - 1);
    return first <= last ? { first, last } : null;
  }

  /**
   * Sums per local day. `offset` is a SQL expression of `t` (the start of an hour or quarter
   * hour) giving the zone's offset in ms; `quarterHours` when that is not always a whole
   * number of hours. Days are counted from 1970-01-01 (local).
   */
  byLocalDay(
    filter: UsageFilter,
    offset: string,
    quarterHours: boolean,
  ): (UsageSums & { day: number })[] {
    const src = covering(
      filter,
      quarterHours ? [USAGE_QUARTER] : [USAGE_HOUR, USAGE_QUARTER],
      USAGE_COLUMNS,
    );
    const rows = this.#db.prepare(
      `SELECT (t + ${offset}) / ${DAY_MS} AS day, ${SUMS} FROM (${src.sql}) GROUP BY day ORDER BY day`,
    ).all(...src.params) as Record<string, number | string>[];
    return rows.map((r) => ({ ...sums(r), day: Number(r.day) }));
  }

  /** Sums per local day and model (`--breakdown`); `offset` as for `byLocalDay`. */
  byLocalDayAndModel(
    filter: UsageFilter,
    offset: string,
    quarterHours: boolean,
  ): (UsageSums & { day: number; provider: string; model: string })[] {
    const src = covering(
      filter,
      quarterHours ? [USAGE_QUARTER] : [USAGE_HOUR_MODEL, USAGE_QUARTER],
      `provider, model, ${USAGE_COLUMNS}`,
    );
    const rows = this.#db.prepare(
      `SELECT (t + ${offset}) / ${DAY_MS} AS day, provider, model, ${SUMS}
       FROM (${src.sql}) GROUP BY day, provider, model ORDER BY day`,
    ).all(...src.params) as Record<string, number | string>[];
    return rows.map((r) => ({
      ...sums(r),
      day: Number(r.day),
      provider: String(r.provider),
      model: String(r.model),
    }));
  }

  /** Sums per provider and model over the period (no local time needed: UTC days first). */
  byModel(filter: UsageFilter): (UsageSums & { provider: string; model: string })[] {
    const src = covering(
      filter,
      [USAGE_DAY_MODEL, USAGE_HOUR_MODEL, USAGE_QUARTER],
      `provider, model, ${USAGE_COLUMNS}`,
    );
    const rows = this.#db.prepare(
      `SELECT provider, model, ${SUMS} FROM (${src.sql}) GROUP BY provider, model`,
    ).all(...src.params) as Record<string, number | string>[];
    return rows.map((r) => ({ ...sums(r), provider: String(r.provider), model: String(r.model) }));
  }

  /** Tokens and turns per local weekday (0 = Sunday) and hour; `offset` as for `byLocalDay`. */
  byWeekdayHour(
    filter: UsageFilter,
    offset: string,
    quarterHours: boolean,
  ): { weekday: number; hour: number; tokens: number; turns: number }[] {
    const src = covering(
      filter,
      quarterHours ? [USAGE_QUARTER] : [USAGE_HOUR, USAGE_QUARTER],
      "input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, turns",
    );
    // 1970-01-01 was a Thursday (weekday 4).
    return this.#db.prepare(
      `SELECT ((t + ${offset}) / ${DAY_MS} + 4) % 7 AS weekday,
         ((t + ${offset}) % ${DAY_MS}) / ${HOUR_MS} AS hour,
         sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens
           + cache_write_1h_tokens) AS tokens, sum(turns) AS turns
       FROM (${src.sql}) GROUP BY weekday, hour`,
    ).all(...src.params) as { weekday: number; hour: number; tokens: number; turns: number }[];
  }

  /**
   * Sums per session (with its title and project), most expensive first, then most tokens.
   * Without a period the candidates come from the sessions' own running totals (one small
   * table) and only theirs are summed from the rollups.
   */
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
    let w = where(filter, "r.bucket");
    let cond = w.sql.replace("project_id", "r.project_id");
    if (filter.since === undefined && filter.until === undefined) {
      const top = this.#db.prepare(
        `SELECT id FROM sessions WHERE total_tokens > 0 ${
          filter.projectId !== undefined ? "AND project_id = ?" : ""
        } ORDER BY cost_usd DESC, total_tokens DESC LIMIT ?`,
      ).all(
        ...(filter.projectId !== undefined ? [filter.projectId] : []),
        limit,
      ) as { id: string }[];
      if (top.length === 0) return [];
      w = { sql: "", params: top.map((t) => t.id) };
      cond = `WHERE r.session_id IN (${top.map(() => "?").join(", ")})`;
    }
    const rows = this.#db.prepare(
      `SELECT r.session_id, s.title, p.root_path, min(r.bucket) AS first_bucket, max(r.bucket) AS last_bucket, ${
        SUMS.replaceAll("sum(", "sum(r.")
      }
       FROM usage_rollup r JOIN sessions s ON s.id = r.session_id JOIN projects p ON p.id = s.project_id
       ${cond}
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
    const src = covering(
      filter,
      [TOOL_DAY, TOOL_QUARTER],
      "tool_name, calls, failures, total_ms, timed",
    );
    const rows = this.#db.prepare(
      `SELECT tool_name AS tool, sum(calls) AS calls, sum(failures) AS failures,
         sum(total_ms) AS total_ms, sum(timed) AS timed
       FROM (${src.sql}) GROUP BY tool_name HAVING sum(calls) > 0
       ORDER BY calls DESC, tool`,
    ).all(...src.params) as {
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
    // The index is missing while a big import runs (or after one was killed): scan then.
    const indexed = hasIndex(this.#db, DURATION_INDEX) ? `INDEXED BY ${DURATION_INDEX}` : "";
    const slowest = this.#db.prepare(
      `SELECT duration_ms AS d FROM tool_calls ${indexed}
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

function ceilQuarter(ms: number): number {
  return Math.ceil(ms / QUARTER_MS) * QUARTER_MS;
}
