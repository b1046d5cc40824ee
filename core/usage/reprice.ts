// `bonsai db reprice`: recomputes the stored costs of ledger rows with the current price table
// and saved prices, in batches of one transaction each; the ledger's update triggers keep
// session totals and usage rollups in step.
import { BonsaiError } from "../errors.ts";
import type { Db } from "../storage/db.ts";
import { type CostRow, type CostUpdate, LedgerCosts } from "../storage/ledger_costs.ts";
import { type ActiveSessionRow, SessionStore } from "../storage/sessions.ts";
import { priceTokens } from "./pricing.ts";

/** What to reprice and how. */
export interface RepriceOptions {
  /** Only rows created at or after this time (epoch ms). */
  readonly since?: number;
  /** Only rows without a price. */
  readonly unpricedOnly?: boolean;
  /** Go ahead while other processes have live sessions. */
  readonly force?: boolean;
  /** The liveness rule (core/session/liveness.ts), bound to this process and now. */
  readonly liveElsewhere: (row: ActiveSessionRow) => boolean;
  /** Rows per transaction (default 2,000). */
  readonly batchSize?: number;
}

/** What repricing changed for one model. */
export interface ModelReprice {
  readonly provider: string;
  readonly model: string;
  /** Rows looked at. */
  readonly rows: number;
  /** Rows whose cost changed (newly priced ones included). */
  readonly changed: number;
  /** Rows that had no price and now have one. */
  readonly newlyPriced: number;
  /** Rows that still have no price. */
  readonly unpriced: number;
  /** Sum of the rows' costs before and after (unpriced rows count 0). */
  readonly costBefore: number;
  readonly costAfter: number;
}

/** What `reprice` did. */
export interface RepriceReport {
  readonly rows: number;
  readonly changed: number;
  readonly newlyPriced: number;
  readonly unpriced: number;
  readonly costBefore: number;
  readonly costAfter: number;
  /** Sessions live in other processes (repriced anyway only with `force`). */
  readonly liveSessions: number;
  /** Per model, the biggest change first. */
  readonly models: readonly ModelReprice[];
}

const sameCost = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-12 + 1e-9 * Math.abs(b);

interface Tally {
  provider: string;
  model: string;
  rows: number;
  changed: number;
  newlyPriced: number;
  unpriced: number;
  costBefore: number;
  costAfter: number;
}

/** The new costs of a row, or null when they stay. A model without a price now keeps its old ones. */
function repriced(row: CostRow): CostUpdate | null {
  const cost = priceTokens(row.model, row, { at: row.createdAt });
  if (cost.usd === null) return null;
  if (sameCost(row.costUsd, cost.usd) && sameCost(row.baselineCostUsd, cost.baselineUsd)) {
    return null;
  }
  return { id: row.id, costUsd: cost.usd, baselineCostUsd: cost.baselineUsd };
}

/**
 * Recomputes stored costs (`cost_usd`, `baseline_cost_usd`) of the ledger's rows. A row whose
 * model has no price now keeps what it has (a response priced by an older table stays
 * priced). Refuses while another process has a live session (it may be writing rows priced
 * the old way), unless `force`.
 */
export function reprice(db: Db, options: RepriceOptions): RepriceReport {
  const live = db.read(() => new SessionStore(db).active().filter(options.liveElsewhere));
  if (live.length > 0 && !options.force) {
    throw new BonsaiError(
      "SESSION_LIVE",
      `Cannot reprice while ${live.length} session(s) are live (e.g. '${live[0]!.id}' in process ${
        live[0]!.ownerPid ?? "?"
      }); quit them first or pass --force`,
    );
  }
  const costs = new LedgerCosts(db);
  const tallies = new Map<string, Tally>();
  const size = options.batchSize ?? 2_000;
  let after = 0;
  for (;;) {
    const rows = db.write(() => {
      const batch = costs.rowsAfter(after, size, options);
      const updates: CostUpdate[] = [];
      for (const row of batch) {
        const update = repriced(row);
        if (update) updates.push(update);
        tally(tallies, row, update);
      }
      costs.setCosts(updates);
      return batch;
    });
    if (rows.length < size) break;
    after = rows[rows.length - 1]!.id;
  }
  const models = [...tallies.values()].sort((a, b) =>
    Math.abs(b.costAfter - b.costBefore) - Math.abs(a.costAfter - a.costBefore) ||
    a.model.localeCompare(b.model)
  );
  const sum = (f: (t: Tally) => number) => models.reduce((n, t) => n + f(t), 0);
  return {
    rows: sum((t) => t.rows),
    changed: sum((t) => t.changed),
    newlyPriced: sum((t) => t.newlyPriced),
    unpriced: sum((t) => t.unpriced),
    costBefore: sum((t) => t.costBefore),
    costAfter: sum((t) => t.costAfter),
    liveSessions: live.length,
    models,
  };
}

function tally(tallies: Map<string, Tally>, row: CostRow, update: CostUpdate | null): void {
  const key = `${row.provider}\u0000${row.model}`;
  let t = tallies.get(key);
  if (!t) {
    t = {
      provider: row.provider,
      model: row.model,
      rows: 0,
      changed: 0,
      newlyPriced: 0,
      unpriced: 0,
      costBefore: 0,
      costAfter: 0,
    };
    tallies.set(key, t);
  }
  const after = update ? update.costUsd : row.costUsd;
  t.rows++;
  if (update) t.changed++;
  if (update && row.costUsd === null) t.newlyPriced++;
  if (after === null) t.unpriced++;
  t.costBefore += row.costUsd ?? 0;
  t.costAfter += after ?? 0;
}
