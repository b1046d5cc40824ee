import type { Db } from "./db.ts";

/** A ledger row as repricing reads it. */
export interface CostRow {
  readonly id: number;
  readonly provider: string;
  readonly model: string;
  readonly createdAt: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  /** Null: no known price when it was stored. */
  readonly costUsd: number | null;
  readonly baselineCostUsd: number | null;
}

/** A row's new costs. */
export interface CostUpdate {
  readonly id: number;
  readonly costUsd: number | null;
  readonly baselineCostUsd: number | null;
}

/**
 * The stored costs of ledger rows, read and rewritten by `bonsai db reprice`. Rewriting a
 * row's costs moves the difference into its session's totals (`cost_usd`,
 * `unpriced_attempts`) and into every usage rollup, by the ledger's update triggers
 * (migrations 0002 and 0005).
 */
export class LedgerCosts {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Up to `limit` rows with ids above `afterId`, in id order: those created at or after
   * `since` (epoch ms), and with `unpricedOnly` only those without a price.
   */
  rowsAfter(
    afterId: number,
    limit: number,
    filter: { readonly since?: number; readonly unpricedOnly?: boolean } = {},
  ): CostRow[] {
    const rows = this.#db.prepare(
      `SELECT id, provider, model, created_at, input_tokens, output_tokens, cache_read_tokens,
         cache_write_5m_tokens, cache_write_1h_tokens, cost_usd, baseline_cost_usd
       FROM ledger WHERE id > ? AND created_at >= ? AND (? = 0 OR cost_usd IS NULL)
       ORDER BY id LIMIT ?`,
    ).all(afterId, filter.since ?? 0, filter.unpricedOnly ? 1 : 0, limit);
    return rows.map((r) => ({
      id: Number(r.id),
      provider: String(r.provider),
      model: String(r.model),
      createdAt: Number(r.created_at),
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      cacheReadTokens: Number(r.cache_read_tokens),
      cacheWrite5mTokens: Number(r.cache_write_5m_tokens),
      cacheWrite1hTokens: Number(r.cache_write_1h_tokens),
      costUsd: r.cost_usd === null ? null : Number(r.cost_usd),
      baselineCostUsd: r.baseline_cost_usd === null ? null : Number(r.baseline_cost_usd),
    }));
  }

  /** Writes new costs in one transaction (joins the caller's, if one is open). */
  setCosts(updates: readonly CostUpdate[]): void {
    if (updates.length === 0) return;
    const stmt = this.#db.prepare(
      "UPDATE ledger SET cost_usd = ?, baseline_cost_usd = ? WHERE id = ?",
    );
    this.#db.write(() => {
      for (const u of updates) stmt.run(u.costUsd, u.baselineCostUsd, u.id);
    });
  }
}
