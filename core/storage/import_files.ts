import type { Db } from "./db.ts";

/** How far an imported file has been read. */
export interface ImportedFile {
  readonly size: number;
  readonly mtimeMs: number;
  /** Bytes consumed: everything before is imported; a partial last line is read next time. */
  readonly offset: number;
}

/** Import bookkeeping, so re-imports skip unchanged files and read grown ones from where they stopped. */
export class ImportFileStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  get(source: "claude-code" | "codex", path: string): ImportedFile | null {
    const row = this.#db.prepare(
      "SELECT size, mtime_ms, offset_bytes FROM import_files WHERE source = ? AND path = ?",
    )
      .get(source, path) as { size: number; mtime_ms: number; offset_bytes: number } | undefined;
    return row ? { size: row.size, mtimeMs: row.mtime_ms, offset: row.offset_bytes } : null;
  }

  put(source: "claude-code" | "codex", path: string, file: ImportedFile): void {
    this.#db.prepare(
      `INSERT INTO import_files (source, path, size, mtime_ms, offset_bytes, imported_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
         offset_bytes = excluded.offset_bytes, imported_at = excluded.imported_at`,
    ).run(source, path, file.size, file.mtimeMs, file.offset, this.#db.clock.now());
  }
}
