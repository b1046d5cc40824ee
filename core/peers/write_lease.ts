import { sleep } from "../abort.ts";
import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import { ownerAlive, type ProcessProbe } from "../session/liveness.ts";
import type { Db } from "../storage/db.ts";
import { type LeaseHolder, LeaseStore } from "../storage/leases.ts";

/** How long a lease lasts without renewal (P2). */
export const LEASE_TTL_MS = 30_000;
/** Longest a mutation waits for the lease before giving up. */
export const LEASE_WAIT_MS = 60_000;
/** How often a waiter looks again (a read; it writes only to take a lease that is free). */
const POLL_MS = 10;

/** What a session's write lease needs. */
export interface WriteLeaseDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly projectId: number;
  readonly sessionId: string;
  readonly probe?: ProcessProbe;
  readonly ttlMs?: number;
  readonly maxWaitMs?: number;
  /** Told once per wait who holds the lease (the front end shows it). */
  readonly onWait?: (holder: LeaseHolder) => void;
}

/**
 * A session's hold on its project's write lease (P2): mutations of the shared workspace
 * take it, commit under it, and give it back. A holder that died (its session is not live:
 * stale heartbeat or a dead process) or whose lease expired no longer holds it. Waiting is
 * bounded and visible; a commit is fenced by the token (see LeaseStore.confirm), so a
 * holder that was paused while another took the lease changes nothing.
 */
export class WriteLease {
  readonly #deps: WriteLeaseDeps;
  readonly #store: LeaseStore;

  constructor(deps: WriteLeaseDeps) {
    this.#deps = deps;
    this.#store = new LeaseStore(deps.db);
  }

  get #ttl(): number {
    return this.#deps.ttlMs ?? LEASE_TTL_MS;
  }

  /**
   * Takes the lease, waiting (bounded) while a live peer holds it; returns the token.
   * LEASE_BUSY when it stayed held; the signal's reason when cancelled.
   */
  async acquire(signal?: AbortSignal): Promise<number> {
    const { clock, projectId, sessionId } = this.#deps;
    const deadline = clock.now() + (this.#deps.maxWaitMs ?? LEASE_WAIT_MS);
    let told: number | null = null;
    try {
      for (;;) {
        const now = clock.now();
        const held = (h: LeaseHolder) =>
          h.sessionId !== sessionId && h.expiresAt > now && ownerAlive(h, now, this.#deps.probe);
        // Waiters look without writing; only a lease that looks free is tried for (in one
        // transaction that looks again), so waiting costs the holder nothing.
        const seen = this.#store.current(projectId);
        const got = seen && held(seen) ? { holder: seen } : this.#store.tryAcquire(
          projectId,
          sessionId,
          now,
          this.#ttl,
          held,
        );
        if ("token" in got) return got.token;
        if (told !== got.holder.token) {
          told = got.holder.token;
          this.#store.setWaiting(sessionId, projectId, now);
          this.#deps.onWait?.(got.holder);
        }
        if (now >= deadline) throw busy(got.holder);
        await sleep(POLL_MS, signal);
      }
    } finally {
      if (told !== null) this.#store.setWaiting(sessionId, null, clock.now());
    }
  }

  /** Runs `fn` in a transaction that first confirms the lease is still `token`'s (LEASE_LOST otherwise). */
  commit<T>(token: number, fn: () => T): T {
    const { db, clock, projectId } = this.#deps;
    return db.write(() => {
      this.#store.confirm(projectId, token, clock.now(), this.#ttl);
      return fn();
    });
  }

  /** Gives the lease back. */
  release(token: number): void {
    this.#store.release(token, this.#deps.clock.now());
  }

  /**
   * Holds the lease while `fn` runs, renewing it in the background (a long mutation such as
   * a restore), then gives it back.
   */
  async hold<T>(fn: (token: number) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const token = await this.acquire(signal);
    const renew = setInterval(() => {
      try {
        this.commit(token, () => {});
      } catch {
        clearInterval(renew); // lost: the mutation's own commit will find out and refuse
      }
    }, this.#ttl / 3);
    try {
      return await fn(token);
    } finally {
      clearInterval(renew);
      this.release(token);
    }
  }
}

function busy(holder: LeaseHolder): BonsaiError {
  return new BonsaiError(
    "LEASE_BUSY",
    `The project's write lease stayed with '${holder.title}' (process ${
      holder.ownerPid ?? "?"
    }); try again when it is done`,
    { data: { session: holder.sessionId, pid: holder.ownerPid } },
  );
}
