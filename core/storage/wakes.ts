import type { Db } from "./db.ts";

/** A one-shot wake-when-done: `waiter` is woken once when `target` finishes a turn (P3). */
export interface Wake {
  readonly id: number;
  readonly waiter: string;
  readonly target: string;
  readonly hops: number;
  readonly createdAt: number;
}

/** Registered wakes between sessions. */
export class WakeStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Registers (or renews) `waiter`'s wake on `target`. */
  register(waiter: string, target: string, hops: number, now: number): void {
    this.#db.write(() =>
      this.#db.prepare(
        `INSERT INTO wakes (waiter, target, hops, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (waiter, target) DO UPDATE SET hops = excluded.hops,
           created_at = excluded.created_at, fired_at = NULL`,
      ).run(waiter, target, hops, now)
    );
  }

  /** Every session that `session` waits on, directly or through others (unfired wakes). */
  waitsOn(session: string): Set<string> {
    const rows = this.#db.prepare(
      `WITH RECURSIVE chain(id) AS (
         SELECT target FROM wakes WHERE waiter = ? AND fired_at IS NULL
         UNION SELECT w.target FROM wakes w JOIN chain c ON w.waiter = c.id WHERE w.fired_at IS NULL
       ) SELECT id FROM chain`,
    ).all(session) as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  /** Unfired wakes on `target`. */
  on(target: string): Wake[] {
    return (this.#db.prepare(
      "SELECT id, waiter, target, hops, created_at FROM wakes WHERE target = ? AND fired_at IS NULL ORDER BY id",
    ).all(target) as {
      id: number;
      waiter: string;
      target: string;
      hops: number;
      created_at: number;
    }[])
      .map((r) => ({
        id: r.id,
        waiter: r.waiter,
        target: r.target,
        hops: r.hops,
        createdAt: r.created_at,
      }));
  }

  /** Sessions with an unfired wake on `target` (they wait for it). */
  waiters(target: string): number {
    return (this.#db.prepare(
      "SELECT count(*) AS n FROM wakes WHERE target = ? AND fired_at IS NULL",
    ).get(target) as { n: number }).n;
  }

  /** Marks a wake fired (in the transaction that posts its delivery); false when it was already. */
  fire(id: number, now: number): boolean {
    const { changes } = this.#db.prepare(
      "UPDATE wakes SET fired_at = ? WHERE id = ? AND fired_at IS NULL",
    ).run(now, id);
    return Number(changes) === 1;
  }
}
