import type { Db } from "../storage/db.ts";
import { ImportFileStore } from "../storage/import_files.ts";
import type { SessionSource } from "../storage/sessions.ts";
import type { ImportStats } from "./stats.ts";

/** A file an import has to read, from byte `from`; `index` is its place in the file list. */
export interface FileJob {
  readonly index: number;
  readonly path: string;
  readonly from: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * The files among `paths` with something new to read, counting each in `stats`: unchanged
 * since the last import (same size and mtime) is skipped, unreadable is counted. With
 * `resume`, a grown file is read on from where the last import stopped; otherwise (and
 * for a file that shrank) from its start.
 */
export function pendingFiles(
  db: Db,
  source: Exclude<SessionSource, "bonsai">,
  paths: readonly string[],
  stats: ImportStats,
  options: { resume: boolean },
): FileJob[] {
  const bookkeeping = new ImportFileStore(db);
  const jobs: FileJob[] = [];
  for (const [index, path] of paths.entries()) {
    stats.files++;
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(path);
    } catch {
      stats.unreadable++;
      continue;
    }
    const mtimeMs = info.mtime?.getTime() ?? 0;
    const known = bookkeeping.get(source, path);
    if (known && known.size === info.size && known.mtimeMs === mtimeMs) {
      stats.skippedFiles++;
      continue;
    }
    const from = options.resume && known && info.size >= known.offset ? known.offset : 0;
    jobs.push({ index, path, from, size: info.size, mtimeMs });
  }
  return jobs;
}
