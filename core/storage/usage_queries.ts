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

  /** Sums per quarter-hour bucket and model. */
  byBucketAndModel(
    filter: UsageFilter,
  ): (UsageSums & { bucket: number; provider: string; model: string })[] {
    const w = where(filter);
    const rows = this.#db.prepare(
      `SELECT bucket, provider, model, ${SUMS} FROM usage_rollup ${w.sql} GROUP BY bucket, provider, model ORDER BY bucket`,
    ).all(...w.params) as Record<string, number | string>[];
    return rows.map((r) => ({
      ...sums(r),
      bucket: Number(r.bucket),
      provider: String(r.provider),
      model: String(r.model),
    }));
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

  /** Tool calls per tool: calls, failures, total and 95th-percentile duration. */
  tools(
    filter: UsageFilter,
  ): { tool: string; calls: number; failures: number; totalMs: number; p95Ms: number | null }[] {
    const clauses: string[] = ["1 = 1"];
    const params: SqlValue[] = [];
    if (filter.since !== undefined) {
      clauses.push("t.started_at >= ?");
      params.push(filter.since);
    }
    if (filter.until !== undefined) {
      clauses.push("t.started_at < ?");
      params.push(filter.until);
    }
    if (filter.projectId !== undefined) {
      clauses.push("t.session_id IN (SELECT id FROM sessions WHERE project_id = ?)");
      params.push(filter.projectId);
    }
    const cond = clauses.join(" AND ");
    const rows = this.#db.prepare(
      `SELECT t.tool_name AS tool, count(*) AS calls,
         sum(t.status IN ('error', 'timeout', 'denied', 'lost', 'cancelled')) AS failures,
         coalesce(sum(t.duration_ms), 0) AS total_ms, count(t.duration_ms) AS timed
       FROM tool_calls t WHERE ${cond} GROUP BY t.tool_name ORDER BY calls DESC`,
    ).all(...params) as {
      tool: string;
      calls: number;
      failures: number;
      total_ms: number;
      timed: number;
    }[];
    const p95 = this.#db.prepare(
      `SELECT t.duration_ms AS d FROM tool_calls t WHERE ${cond} AND t.tool_name = ? AND t.duration_ms IS NOT NULL
       ORDER BY t.duration_ms LIMIT 1 OFFSET ?`,
    );
    return rows.map((r) => {
      const offset = Math.max(0, Math.ceil(r.timed * 0.95) - 1);
      const row = r.timed > 0
        ? p95.get(...params, r.tool, offset) as { d: number } | undefined
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
