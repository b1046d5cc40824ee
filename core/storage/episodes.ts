import type { Db } from "./db.ts";

/** What started an episode. */
export type EpisodeBoundary = "start" | "title" | "compaction" | "reset" | "resume";

/** A stretch of work with one goal. */
export interface Episode {
  readonly id: number;
  readonly sessionId: string;
  readonly ordinal: number;
  readonly boundary: EpisodeBoundary;
  readonly title: string | null;
  readonly summary: string | null;
  readonly startSeq: number;
  readonly endSeq: number | null;
  readonly startedAt: number;
  readonly endedAt: number | null;
}

interface EpisodeRecord {
  id: number;
  session_id: string;
  ordinal: number;
  boundary: EpisodeBoundary;
  title: string | null;
  summary: string | null;
  start_seq: number;
  end_seq: number | null;
  started_at: number;
  ended_at: number | null;
}

/** Episode records of sessions. */
export class EpisodeStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Opens a new episode, closing the current one at `startSeq - 1`. */
  begin(
    sessionId: string,
    input: { boundary: EpisodeBoundary; startSeq: number; title?: string | null; at?: number },
  ): Episode {
    const db = this.#db;
    return db.write(() => {
      const at = input.at ?? db.clock.now();
      const current = this.current(sessionId);
      if (current) {
        db.prepare("UPDATE episodes SET end_seq = ?, ended_at = ? WHERE id = ?")
          .run(Math.max(current.startSeq, input.startSeq - 1), at, current.id);
      }
      const ordinal = (current?.ordinal ?? 0) + 1;
      const { lastInsertRowid } = db.prepare(
        `INSERT INTO episodes (session_id, ordinal, boundary, title, start_seq, started_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(
        sessionId,
        ordinal,
        input.boundary,
        db.redactor.redactOptional(input.title),
        input.startSeq,
        at,
      );
      return this.#byId(Number(lastInsertRowid));
    });
  }

  /** Sets the title and summary of the session's open episode. */
  describe(sessionId: string, fields: { title?: string | null; summary?: string | null }): void {
    const db = this.#db;
    db.write(() => {
      const current = this.current(sessionId);
      if (!current) return;
      db.prepare(
        "UPDATE episodes SET title = coalesce(?, title), summary = coalesce(?, summary) WHERE id = ?",
      )
        .run(
          db.redactor.redactOptional(fields.title ?? null),
          db.redactor.redactOptional(fields.summary ?? null),
          current.id,
        );
    });
  }

  /** Closes the open episode at `endSeq`. */
  close(sessionId: string, endSeq: number, at: number = this.#db.clock.now()): void {
    this.#db.prepare(
      "UPDATE episodes SET end_seq = ?, ended_at = ? WHERE session_id = ? AND ended_at IS NULL",
    ).run(endSeq, at, sessionId);
  }

  /** The open (latest) episode, or null. */
  current(sessionId: string): Episode | null {
    const row = this.#db
      .prepare("SELECT * FROM episodes WHERE session_id = ? ORDER BY ordinal DESC LIMIT 1")
      .get(sessionId) as EpisodeRecord | undefined;
    return row ? toEpisode(row) : null;
  }

  /** Every episode of a session, in order. */
  list(sessionId: string): Episode[] {
    const rows = this.#db
      .prepare("SELECT * FROM episodes WHERE session_id = ? ORDER BY ordinal")
      .all(sessionId) as unknown as EpisodeRecord[];
    return rows.map(toEpisode);
  }

  #byId(id: number): Episode {
    return toEpisode(
      this.#db.prepare("SELECT * FROM episodes WHERE id = ?").get(id) as unknown as EpisodeRecord,
    );
  }
}

function toEpisode(r: EpisodeRecord): Episode {
  return {
    id: r.id,
    sessionId: r.session_id,
    ordinal: r.ordinal,
    boundary: r.boundary,
    title: r.title,
    summary: r.summary,
    startSeq: r.start_seq,
    endSeq: r.end_seq,
    startedAt: r.started_at,
    endedAt: r.ended_at,
  };
}
