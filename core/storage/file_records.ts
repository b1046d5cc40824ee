import type { Db } from "./db.ts";

/** What the agent read of a file, with hashes to detect later changes. */
export interface ReadEvidence {
  /** Relative to the project root. */
  readonly path: string;
  readonly startLine: number | null;
  readonly endLine: number | null;
  readonly contentHash: string;
  readonly fileHash: string;
  readonly callId: string | null;
  readonly readAt: number;
}

/** A file this session changed (P4: attributes concurrent edits; self-review scope). */
export interface ChangedFile {
  readonly path: string;
  readonly firstAt: number;
  readonly lastAt: number;
  readonly changes: number;
}

/** Read evidence and changed-file records of sessions. */
export class FileRecordStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Appends read evidence. */
  addReads(sessionId: string, reads: readonly ReadEvidence[]): void {
    const db = this.#db;
    db.write(() => {
      const stmt = db.prepare(
        `INSERT INTO read_evidence (session_id, path, start_line, end_line, content_hash, file_hash, call_id, read_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const r of reads) {
        stmt.run(
          sessionId,
          r.path,
          r.startLine,
          r.endLine,
          r.contentHash,
          r.fileHash,
          r.callId,
          r.readAt,
        );
      }
    });
  }

  /** The session's read evidence in order. */
  reads(sessionId: string): ReadEvidence[] {
    const rows = this.#db.prepare(
      `SELECT path, start_line, end_line, content_hash, file_hash, call_id, read_at FROM read_evidence
       WHERE session_id = ? ORDER BY id`,
    ).all(sessionId) as {
      path: string;
      start_line: number | null;
      end_line: number | null;
      content_hash: string;
      file_hash: string;
      call_id: string | null;
      read_at: number;
    }[];
    return rows.map((r) => ({
      path: r.path,
      startLine: r.start_line,
      endLine: r.end_line,
      contentHash: r.content_hash,
      fileHash: r.file_hash,
      callId: r.call_id,
      readAt: r.read_at,
    }));
  }

  /** Writes changed-file records (replacing by path). */
  putChanged(sessionId: string, files: readonly ChangedFile[]): void {
    const db = this.#db;
    db.write(() => {
      const stmt = db.prepare(
        `INSERT OR REPLACE INTO changed_files (session_id, path, first_at, last_at, changes) VALUES (?, ?, ?, ?, ?)`,
      );
      for (const f of files) stmt.run(sessionId, f.path, f.firstAt, f.lastAt, f.changes);
    });
  }

  /** Files the session changed, by path. */
  changed(sessionId: string): ChangedFile[] {
    const rows = this.#db.prepare(
      "SELECT path, first_at, last_at, changes FROM changed_files WHERE session_id = ? ORDER BY path",
    ).all(sessionId) as { path: string; first_at: number; last_at: number; changes: number }[];
    return rows.map((r) => ({
      path: r.path,
      firstAt: r.first_at,
      lastAt: r.last_at,
      changes: r.changes,
    }));
  }
}
