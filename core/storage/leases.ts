import { BonsaiError } from "../errors.ts";
import type { Db } from "./db.ts";

/** Who holds a project's write lease. */
export interface LeaseHolder {
  /** The lease row id: the fencing token. */
  readonly token: number;
  readonly sessionId: string;
  readonly title: string;
  /** The holder session's status (liveness is judged on it). */
  readonly status: string;
  readonly ownerPid: number | null;
  readonly ownerHost: string | null;
  readonly heartbeatAt: number | null;
  readonly createdAt: number;
  readonly acquiredAt: number;
  readonly expiresAt: number;
}

/** The outcome of one try: the token, or who holds the lease. */
export type LeaseTry = { readonly token: number } | { readonly holder: LeaseHolder };

interface HolderRecord {
  token: number;
  owner_session: string;
  title: string;
  status: string;
  owner_pid: number | null;
  owner_host: string | null;
  heartbeat_at: number | null;
  created_at: number;
  acquired_at: number;
  expires_at: number;
}

/**
 * The project-wide write lease (P2): one row per acquisition, whose id is the fencing
 * token. The current lease of a project is its newest unreleased row; an acquisition always
 * adds a newer one, so an older token can never confirm a commit again.
 */
export class LeaseStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The project's newest unreleased lease, with its holder's session, or null. */
  current(projectId: number): LeaseHolder | null {
    const row = this.#db.prepare(
      `SELECT l.token, l.owner_session, l.acquired_at, l.expires_at, s.title, s.status, s.owner_pid,
         s.owner_host, s.heartbeat_at, s.created_at
       FROM leases l JOIN sessions s ON s.id = l.owner_session
       WHERE l.project_id = ? AND l.released_at IS NULL ORDER BY l.token DESC LIMIT 1`,
    ).get(projectId) as HolderRecord | undefined;
    return row ? toHolder(row) : null;
  }

  /**
   * Takes the lease for `sessionId` unless a holder that `stillHeld` accepts has it (a
   * session's own lease is extended). One transaction: two processes cannot both win.
   */
  tryAcquire(
    projectId: number,
    sessionId: string,
    now: number,
    ttlMs: number,
    stillHeld: (holder: LeaseHolder) => boolean,
  ): LeaseTry {
    const db = this.#db;
    return db.write(() => {
      const holder = this.current(projectId);
      if (holder && holder.sessionId !== sessionId && stillHeld(holder)) return { holder };
      if (holder && holder.sessionId === sessionId) {
        db.prepare("UPDATE leases SET expires_at = ? WHERE token = ?").run(
          now + ttlMs,
          holder.token,
        );
        return { token: holder.token };
      }
      if (holder) {
        db.prepare("UPDATE leases SET released_at = ? WHERE token = ?").run(now, holder.token);
      }
      const row = db.prepare(
        `INSERT INTO leases (project_id, owner_session, acquired_at, expires_at)
         VALUES (?, ?, ?, ?) RETURNING token`,
      ).get(projectId, sessionId, now, now + ttlMs) as { token: number };
      return { token: row.token };
    });
  }

  /**
   * The fence of a commit, first in its transaction: the lease stays this token's only
   * while no acquisition came after it (a newer row) and it was not released; it is then
   * extended. LEASE_LOST otherwise: the commit must change nothing.
   */
  confirm(projectId: number, token: number, now: number, ttlMs: number): void {
    const { changes } = this.#db.prepare(
      `UPDATE leases SET expires_at = max(expires_at, ?)
       WHERE token = ? AND released_at IS NULL
         AND token = (SELECT max(token) FROM leases WHERE project_id = ?)`,
    ).run(now + ttlMs, token, projectId);
    if (Number(changes) !== 1) {
      throw new BonsaiError(
        "LEASE_LOST",
        "The project's write lease was taken by another process while this one held it (it was paused, or too slow)",
        { data: { token } },
      );
    }
  }

  /** Gives the lease back (a no-op when it is not current any more). */
  release(token: number, now: number): void {
    this.#db.write(() =>
      this.#db.prepare("UPDATE leases SET released_at = ? WHERE token = ? AND released_at IS NULL")
        .run(now, token)
    );
  }

  /** Records that a session waits for its project's lease (peers show it), or that it stopped. */
  setWaiting(sessionId: string, projectId: number | null, now: number): void {
    this.#db.write(() => {
      if (projectId === null) {
        this.#db.prepare("DELETE FROM lease_waits WHERE session_id = ?").run(sessionId);
      } else {
        this.#db.prepare(
          `INSERT INTO lease_waits (session_id, project_id, since) VALUES (?, ?, ?)
           ON CONFLICT (session_id) DO UPDATE SET project_id = excluded.project_id, since = excluded.since`,
        ).run(sessionId, projectId, now);
      }
    });
  }

  /** Sessions of the project waiting for its lease whose heartbeat is newer than `since`. */
  waiting(projectId: number, since: number): { sessionId: string; title: string }[] {
    return (this.#db.prepare(
      `SELECT w.session_id, s.title FROM lease_waits w JOIN sessions s ON s.id = w.session_id
       WHERE w.project_id = ? AND s.status = 'active' AND s.heartbeat_at > ? ORDER BY w.since`,
    ).all(projectId, since) as { session_id: string; title: string }[]).map((r) => ({
      sessionId: r.session_id,
      title: r.title,
    }));
  }
}

function toHolder(r: HolderRecord): LeaseHolder {
  return {
    token: r.token,
    sessionId: r.owner_session,
    title: r.title,
    status: r.status,
    ownerPid: r.owner_pid,
    ownerHost: r.owner_host,
    heartbeatAt: r.heartbeat_at,
    createdAt: r.created_at,
    acquiredAt: r.acquired_at,
    expiresAt: r.expires_at,
  };
}
