import { type Db, hasIndex, withDiskSorts } from "./db.ts";
import { isUniqueViolation } from "./sqlite_errors.ts";

export const EXTERNAL_INDEX = "ledger_external";
const CREATE_EXTERNAL_INDEX = `CREATE UNIQUE INDEX IF NOT EXISTS ${EXTERNAL_INDEX}
  ON ledger(external_id) WHERE external_id IS NOT NULL`;

/** An imported row, as an import needs it to merge a later copy of the same response. */
export interface ImportedRow {
  readonly id: number;
  readonly sessionId: string;
  readonly externalId: string | null;
  /** All its tokens: a copy with more replaces it. */
  readonly total: number;
}

/** A row's tokens, all kinds. */
const TOTAL = `(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens
  + cache_write_1h_tokens)`;

const IMPORTED_ROW = `id, session_id, external_id, ${TOTAL} AS total`;

/** Which row holds which imported response (`externalId` null: not imported). */
export interface LedgerKey {
  readonly id: number;
  readonly sessionId: string;
  readonly externalId: string | null;
}

function importedRow(row: Record<string, unknown> | undefined): ImportedRow | null {
  if (!row) return null;
  return {
    id: Number(row.id),
    sessionId: row.session_id as string,
    externalId: row.external_id as string | null,
    total: Number(row.total),
  };
}

/** Which part of the agent spent the tokens (U1). */
export type Lane = "parent" | "subagent" | "self-review" | "compaction";

/** One provider response (or failed attempt), normalised across providers. */
export interface LedgerEntry {
  readonly sessionId: string;
  readonly projectId: number;
  readonly lane: Lane;
  readonly provider: string;
  readonly model: string;
  readonly attempt: number;
  readonly requestId: string | null;
  readonly responseId: string | null;
  /** Uncached input tokens. */
  readonly inputTokens: number;
  /** Output tokens, reasoning included. */
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly reasoningTokens: number;
  /** False when the provider reported no usage and the numbers are missing or estimated. */
  readonly usageExact: boolean;
  /** Characters streamed (output budgets count these, failed attempts included). */
  readonly outputChars: number;
  /** Null when the model has no known price. */
  readonly costUsd: number | null;
  readonly baselineCostUsd: number | null;
  readonly finishReason: string | null;
  readonly error: string | null;
  readonly latencyMs: number | null;
  readonly ttftMs: number | null;
  readonly prefixHash: string | null;
  readonly prefixRewrite: boolean;
  readonly expectedCacheReadPct: number | null;
  readonly actualCacheReadPct: number | null;
  readonly externalId?: string | null;
  readonly createdAt: number;
}

/** A stored ledger row. */
export interface LedgerRow extends LedgerEntry {
  readonly id: number;
  readonly seq: number;
}

/** Sums over a session's ledger, for budgets and reports. */
export interface LedgerTotals {
  /** Every row (attempt), failed ones included. */
  readonly attempts: number;
  /** Rows of completed responses (no error): what bonsai calls a turn. */
  readonly turns: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  readonly outputChars: number;
  readonly costUsd: number;
  readonly baselineCostUsd: number;
  /** Rows (failed attempts included) without a known price. */
  readonly unpricedAttempts: number;
  /** Rows without provider-reported usage. */
  readonly inexactAttempts: number;
}

interface LedgerRecord {
  id: number;
  session_id: string;
  project_id: number;
  seq: number;
  lane: Lane;
  provider: string;
  model: string;
  attempt: number;
  request_id: string | null;
  response_id: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  usage_exact: number;
  output_chars: number;
  cost_usd: number | null;
  baseline_cost_usd: number | null;
  finish_reason: string | null;
  error: string | null;
  latency_ms: number | null;
  ttft_ms: number | null;
  prefix_hash: string | null;
  prefix_rewrite: number;
  expected_cache_read_pct: number | null;
  actual_cache_read_pct: number | null;
  external_id: string | null;
  created_at: number;
}

/** Every usage rollup column with what a ledger row adds to it (see migration 0002). */
const ROLLUP_SUMS: readonly [column: string, perRow: string][] = [
  ["rows", "1"],
  ["turns", "error IS NULL"],
  ["input_tokens", "input_tokens"],
  ["output_tokens", "output_tokens"],
  ["cache_read_tokens", "cache_read_tokens"],
  ["cache_write_5m_tokens", "cache_write_5m_tokens"],
  ["cache_write_1h_tokens", "cache_write_1h_tokens"],
  ["reasoning_tokens", "reasoning_tokens"],
  ["cost_usd", "coalesce(cost_usd, 0)"],
  ["baseline_cost_usd", "coalesce(baseline_cost_usd, 0)"],
  ["unpriced_turns", "cost_usd IS NULL"],
  ["inexact_turns", "usage_exact = 0"],
  ["expected_pct_sum", "coalesce(expected_cache_read_pct, 0)"],
  ["expected_pct_count", "expected_cache_read_pct IS NOT NULL"],
  ["actual_pct_sum", "coalesce(actual_cache_read_pct, 0)"],
  ["actual_pct_count", "actual_cache_read_pct IS NOT NULL"],
  ["prefix_rewrites", "prefix_rewrite"],
];

/** A usage rollup: its key columns (from ledger expressions) and its conflict target. */
interface Rollup {
  readonly table: string;
  readonly keys: readonly [column: string, expr: string][];
  readonly unique: readonly string[];
}

const ROLLUPS: readonly Rollup[] = [
  {
    table: "usage_rollup",
    keys: [
      ["bucket", "created_at - (created_at % 900000)"],
      ["session_id", "session_id"],
      ["project_id", "project_id"],
      ["provider", "provider"],
      ["model", "model"],
      ["lane", "lane"],
    ],
    unique: ["bucket", "session_id", "provider", "model", "lane"],
  },
  {
    table: "usage_hour",
    keys: [["hour", "created_at - (created_at % 3600000)"], ["provider", "provider"], [
      "model",
      "model",
    ]],
    unique: ["hour", "provider", "model"],
  },
  {
    table: "usage_hour_sum",
    keys: [["hour", "created_at - (created_at % 3600000)"]],
    unique: ["hour"],
  },
  {
    table: "usage_day_model",
    keys: [["day", "created_at - (created_at % 86400000)"], ["provider", "provider"], [
      "model",
      "model",
    ]],
    unique: ["day", "provider", "model"],
  },
];

/** Adds the ledger rows with ids in [?, ?] to one rollup. */
function rollupSql(r: Rollup): string {
  const keys = r.keys.map(([c]) => c);
  return `INSERT INTO ${r.table} (${[...keys, ...ROLLUP_SUMS.map(([c]) => c)].join(", ")})
    SELECT ${r.keys.map(([c, e]) => `${e} AS k_${c}`).join(", ")},
      ${ROLLUP_SUMS.map(([, e]) => `sum(${e})`).join(", ")}
    FROM ledger WHERE id BETWEEN ? AND ? GROUP BY ${keys.map((c) => `k_${c}`).join(", ")}
    ON CONFLICT (${r.unique.join(", ")}) DO UPDATE SET
      ${ROLLUP_SUMS.map(([c]) => `${c} = ${c} + excluded.${c}`).join(", ")}`;
}

/** The usage ledger: one row per provider response. */
export class LedgerStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Appends rows after the session's last one; returns their ids. */
  append(entries: readonly LedgerEntry[]): number[] {
    const db = this.#db;
    return db.write(() => {
      const ids: number[] = [];
      const nextSeq = new Map<string, number>();
      for (const e of entries) {
        const seq = (nextSeq.get(e.sessionId) ?? this.lastSeq(e.sessionId)) + 1;
        nextSeq.set(e.sessionId, seq);
        const { lastInsertRowid } = db.prepare(
          `INSERT INTO ledger (session_id, project_id, seq, lane, provider, model, attempt, request_id,
             response_id, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens,
             cache_write_1h_tokens, reasoning_tokens, usage_exact, output_chars, cost_usd,
             baseline_cost_usd, finish_reason, error, latency_ms, ttft_ms, prefix_hash, prefix_rewrite,
             expected_cache_read_pct, actual_cache_read_pct, external_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          e.sessionId,
          e.projectId,
          seq,
          e.lane,
          e.provider,
          e.model,
          e.attempt,
          e.requestId,
          e.responseId,
          e.inputTokens,
          e.outputTokens,
          e.cacheReadTokens,
          e.cacheWrite5mTokens,
          e.cacheWrite1hTokens,
          e.reasoningTokens,
          e.usageExact ? 1 : 0,
          e.outputChars,
          e.costUsd,
          e.baselineCostUsd,
          e.finishReason,
          db.redactor.redactOptional(e.error),
          e.latencyMs,
          e.ttftMs,
          e.prefixHash,
          e.prefixRewrite ? 1 : 0,
          e.expectedCacheReadPct,
          e.actualCacheReadPct,
          e.externalId ?? null,
          e.createdAt,
        );
        ids.push(Number(lastInsertRowid));
      }
      if (ids.length > 0) this.#aggregate(ids[0]!, ids[ids.length - 1]!);
      return ids;
    });
  }

  /**
   * Adds rows `first`..`last` (just inserted, in order) to the session counters and to every
   * usage rollup: one grouped statement each per batch rather than a trigger per row.
   * Updates and deletes of ledger rows adjust them by trigger (migrations 0002, 0005).
   */
  #aggregate(first: number, last: number): void {
    const db = this.#db;
    db.prepare(
      `UPDATE sessions SET turns = turns + t.n, total_tokens = total_tokens + t.tokens,
         cost_usd = cost_usd + t.cost, unpriced_attempts = unpriced_attempts + t.unpriced
       FROM (SELECT session_id, sum(error IS NULL) AS n,
               sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens
                   + cache_write_1h_tokens) AS tokens,
               sum(coalesce(cost_usd, 0)) AS cost, sum(cost_usd IS NULL) AS unpriced
             FROM ledger WHERE id BETWEEN ? AND ? GROUP BY session_id) AS t
       WHERE sessions.id = t.session_id`,
    ).run(first, last);
    for (const rollup of ROLLUPS) db.prepare(rollupSql(rollup)).run(first, last);
  }

  /** The session's rows in order. */
  list(sessionId: string): LedgerRow[] {
    const rows = this.#db.prepare("SELECT * FROM ledger WHERE session_id = ? ORDER BY seq")
      .all(sessionId) as unknown as LedgerRecord[];
    return rows.map(toRow);
  }

  /** Totals over the session's rows (every lane, failed attempts included). */
  totals(sessionId: string): LedgerTotals {
    const r = this.#db.prepare(
      `SELECT count(*) AS turns, coalesce(sum(error IS NULL), 0) AS completed,
         coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
         coalesce(sum(cache_read_tokens), 0) AS cache_read,
         coalesce(sum(cache_write_5m_tokens + cache_write_1h_tokens), 0) AS cache_write,
         coalesce(sum(reasoning_tokens), 0) AS reasoning, coalesce(sum(output_chars), 0) AS chars,
         coalesce(sum(cost_usd), 0) AS cost, coalesce(sum(baseline_cost_usd), 0) AS baseline,
         coalesce(sum(cost_usd IS NULL), 0) AS unpriced, coalesce(sum(usage_exact = 0), 0) AS inexact
       FROM ledger WHERE session_id = ?`,
    ).get(sessionId) as Record<string, number>;
    return {
      attempts: r.turns!,
      turns: r.completed!,
      inputTokens: r.input!,
      outputTokens: r.output!,
      cacheReadTokens: r.cache_read!,
      cacheWriteTokens: r.cache_write!,
      reasoningTokens: r.reasoning!,
      outputChars: r.chars!,
      costUsd: r.cost!,
      baselineCostUsd: r.baseline!,
      unpricedAttempts: r.unpriced!,
      inexactAttempts: r.inexact!,
    };
  }

  /** The session's totals per lane and model (for /perf). */
  breakdown(sessionId: string): (LedgerTotals & { lane: Lane; provider: string; model: string })[] {
    const rows = this.#db.prepare(
      `SELECT lane, provider, model, count(*) AS turns, coalesce(sum(error IS NULL), 0) AS completed,
         sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cache_read_tokens) AS cache_read,
         sum(cache_write_5m_tokens + cache_write_1h_tokens) AS cache_write, sum(reasoning_tokens) AS reasoning,
         sum(output_chars) AS chars, coalesce(sum(cost_usd), 0) AS cost, coalesce(sum(baseline_cost_usd), 0) AS baseline,
         sum(cost_usd IS NULL) AS unpriced, sum(usage_exact = 0) AS inexact
       FROM ledger WHERE session_id = ? GROUP BY lane, provider, model ORDER BY lane, model`,
    ).all(sessionId) as Record<string, number | string>[];
    return rows.map((r) => ({
      lane: r.lane as Lane,
      provider: String(r.provider),
      model: String(r.model),
      attempts: Number(r.turns),
      turns: Number(r.completed),
      inputTokens: Number(r.input),
      outputTokens: Number(r.output),
      cacheReadTokens: Number(r.cache_read),
      cacheWriteTokens: Number(r.cache_write),
      reasoningTokens: Number(r.reasoning),
      outputChars: Number(r.chars),
      costUsd: Number(r.cost),
      baselineCostUsd: Number(r.baseline),
      unpricedAttempts: Number(r.unpriced),
      inexactAttempts: Number(r.inexact),
    }));
  }

  /** The row imported under an external id (any session), with its token total, or null. */
  findExternal(externalId: string): ImportedRow | null {
    return importedRow(
      this.#db.prepare(`SELECT ${IMPORTED_ROW} FROM ledger WHERE external_id = ? LIMIT 1`)
        .get(externalId),
    );
  }

  /** The row with this id as `findExternal` describes it, or null. */
  importedRow(id: number): ImportedRow | null {
    return importedRow(
      this.#db.prepare(`SELECT ${IMPORTED_ROW} FROM ledger WHERE id = ?`).get(id),
    );
  }

  /**
   * Up to `limit` rows after `afterId`, in id order: each one's id, session and external id
   * (null if not imported).
   */
  externalIdsAfter(afterId: number, limit: number): LedgerKey[] {
    return this.#db.prepare(
      "SELECT id, session_id, external_id FROM ledger WHERE id > ? ORDER BY id LIMIT ?",
    ).all(afterId, limit).map((r) => ({
      id: Number(r.id),
      sessionId: r.session_id as string,
      externalId: r.external_id as string | null,
    }));
  }

  /**
   * Drops the unique external-id index until `buildExternalIndex` (a big import keeps the
   * ids in memory instead: see ResponseIndex). `findExternal` scans without it.
   */
  dropExternalIndex(): void {
    this.#db.write(() => this.#db.connection.exec(`DROP INDEX IF EXISTS ${EXTERNAL_INDEX}`));
  }

  /**
   * Builds the external-id index if it is missing (after a big import, or a killed one).
   * Should a response have been written twice while it was missing, the build fails; the
   * copies are then merged as an import merges them (the one with the most tokens stays)
   * and the index is built again.
   */
  buildExternalIndex(): void {
    if (hasIndex(this.#db, EXTERNAL_INDEX)) return;
    const conn = this.#db.connection;
    withDiskSorts(this.#db, () => {
      try {
        this.#db.write(() => conn.exec(CREATE_EXTERNAL_INDEX));
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        this.#db.write(() => {
          conn.exec(
            `DELETE FROM ledger WHERE id IN (
               SELECT id FROM (
                 SELECT id, row_number() OVER (PARTITION BY external_id ORDER BY ${TOTAL} DESC, id)
                   AS copy
                 FROM ledger WHERE external_id IS NOT NULL)
               WHERE copy > 1)`,
          );
          conn.exec(CREATE_EXTERNAL_INDEX);
        });
      }
    });
  }

  /** Replaces a row's usage with a later, fuller copy of the same response (imports). */
  replaceUsage(id: number, e: LedgerEntry): void {
    this.#db.prepare(
      `UPDATE ledger SET model = ?, input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,
         cache_write_5m_tokens = ?, cache_write_1h_tokens = ?, reasoning_tokens = ?, usage_exact = ?,
         cost_usd = ?, baseline_cost_usd = ?, finish_reason = ?, created_at = ? WHERE id = ?`,
    ).run(
      e.model,
      e.inputTokens,
      e.outputTokens,
      e.cacheReadTokens,
      e.cacheWrite5mTokens,
      e.cacheWrite1hTokens,
      e.reasoningTokens,
      e.usageExact ? 1 : 0,
      e.costUsd,
      e.baselineCostUsd,
      e.finishReason,
      e.createdAt,
      id,
    );
  }

  /** The rows with these ids (those that exist), in id order. */
  byIds(ids: readonly number[]): LedgerRow[] {
    const stmt = this.#db.prepare("SELECT * FROM ledger WHERE id = ?");
    const rows: LedgerRow[] = [];
    for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
      const r = stmt.get(id) as unknown as LedgerRecord | undefined;
      if (r) rows.push(toRow(r));
    }
    return rows;
  }

  /** The highest seq in the session (0 when empty). */
  lastSeq(sessionId: string): number {
    const row = this.#db.prepare("SELECT max(seq) AS seq FROM ledger WHERE session_id = ?").get(
      sessionId,
    ) as {
      seq: number | null;
    };
    return row.seq ?? 0;
  }
}

function toRow(r: LedgerRecord): LedgerRow {
  return {
    id: r.id,
    seq: r.seq,
    sessionId: r.session_id,
    projectId: r.project_id,
    lane: r.lane,
    provider: r.provider,
    model: r.model,
    attempt: r.attempt,
    requestId: r.request_id,
    responseId: r.response_id,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    cacheReadTokens: r.cache_read_tokens,
    cacheWrite5mTokens: r.cache_write_5m_tokens,
    cacheWrite1hTokens: r.cache_write_1h_tokens,
    reasoningTokens: r.reasoning_tokens,
    usageExact: r.usage_exact === 1,
    outputChars: r.output_chars,
    costUsd: r.cost_usd,
    baselineCostUsd: r.baseline_cost_usd,
    finishReason: r.finish_reason,
    error: r.error,
    latencyMs: r.latency_ms,
    ttftMs: r.ttft_ms,
    prefixHash: r.prefix_hash,
    prefixRewrite: r.prefix_rewrite === 1,
    expectedCacheReadPct: r.expected_cache_read_pct,
    actualCacheReadPct: r.actual_cache_read_pct,
    externalId: r.external_id,
    createdAt: r.created_at,
  };
}
