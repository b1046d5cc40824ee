import type { Db } from "./db.ts";

/** An advisory claim of a session on a work area of its project (P3). */
export interface Claim {
  readonly id: number;
  readonly sessionId: string;
  readonly title: string;
  readonly pathGlob: string;
  readonly note: string | null;
  readonly createdAt: number;
  readonly expiresAt: number | null;
}

/** Claims on paths; they expire, and a session's claims go with it. */
export class ClaimStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Takes (or renews) a claim; returns its id. Run it under the project's write lease. */
  take(
    projectId: number,
    sessionId: string,
    claim: { pathGlob: string; note: string | null; now: number; expiresAt: number | null },
  ): number {
    const db = this.#db;
    return db.write(() => {
      const existing = db.prepare(
        "SELECT id FROM claims WHERE session_id = ? AND path_glob = ?",
      ).get(sessionId, claim.pathGlob) as { id: number } | undefined;
      if (existing) {
        db.prepare("UPDATE claims SET note = ?, created_at = ?, expires_at = ? WHERE id = ?")
          .run(
            claim.note === null ? null : db.redactor.redact(claim.note),
            claim.now,
            claim.expiresAt,
            existing.id,
          );
        return existing.id;
      }
      return (db.prepare(
        `INSERT INTO claims (project_id, session_id, path_glob, note, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
      ).get(
        projectId,
        sessionId,
        claim.pathGlob,
        claim.note === null ? null : db.redactor.redact(claim.note),
        claim.now,
        claim.expiresAt,
      ) as { id: number }).id;
    });
  }

  /** Releases a session's claim on `pathGlob` (or all of them); returns how many. */
  release(sessionId: string, pathGlob: string | null): number {
    const db = this.#db;
    return db.write(() => {
      const { changes } = pathGlob === null
        ? db.prepare("DELETE FROM claims WHERE session_id = ?").run(sessionId)
        : db.prepare("DELETE FROM claims WHERE session_id = ? AND path_glob = ?").run(
          sessionId,
          pathGlob,
        );
      return Number(changes);
    });
  }

  /** The project's unexpired claims, oldest first. */
  list(projectId: number, now: number): Claim[] {
    return (this.#db.prepare(
      `SELECT c.id, c.session_id, s.title, c.path_glob, c.note, c.created_at, c.expires_at
       FROM claims c JOIN sessions s ON s.id = c.session_id
       WHERE c.project_id = ? AND (c.expires_at IS NULL OR c.expires_at > ?) ORDER BY c.id`,
    ).all(projectId, now) as {
      id: number;
      session_id: string;
      title: string;
      path_glob: string;
      note: string | null;
      created_at: number;
      expires_at: number | null;
    }[]).map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      title: r.title,
      pathGlob: r.path_glob,
      note: r.note,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
    }));
  }
}
