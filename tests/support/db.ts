import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Clock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { type Ids, ulidSource } from "../../core/ids.ts";
import { createRedactor, type Redactor } from "../../core/secrets.ts";
import { type Db, openDatabase } from "../../core/storage/db.ts";
import type { Migration } from "../../core/storage/migrate.ts";
import { FakeClock } from "./fake_clock.ts";

/** A seeded random byte source, so ids repeat across runs. */
export function seededRandom(seed = 42): (n: number) => Uint8Array {
  let state = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      out[i] = state & 0xff;
    }
    return out;
  };
}

/** Deterministic ids over a clock. */
export function testIds(clock: Clock, seed = 42): Ids {
  return ulidSource(clock, seededRandom(seed));
}

/** Opens a database in `dir` with a fake clock and deterministic ids. */
export async function openTestDb(
  dir: string,
  options: { clock?: FakeClock; redactor?: Redactor; migrations?: readonly Migration[] } = {},
): Promise<{ db: Db; clock: FakeClock; ids: Ids }> {
  const clock = options.clock ?? new FakeClock();
  const db = await openDatabase({
    home: homeAt(dir),
    clock,
    redactor: options.redactor ?? createRedactor(),
    migrations: options.migrations,
  });
  return { db, clock, ids: testIds(clock) };
}

/** Rows of a read-only query on the database in `home` (e2e tests read what a process wrote). */
export function queryHome<T>(home: string, sql: string, ...args: (string | number)[]): T[] {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    return db.prepare(sql).all(...args).map((r) => ({ ...r })) as T[];
  } finally {
    db.close();
  }
}
