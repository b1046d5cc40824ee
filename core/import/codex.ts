// Codex CLI history import: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl
// (and archived_sessions/). Each rollout becomes a session (see codex_rollout.ts); a fork's
// or a spawned sub-agent's copy of its parent's history is told apart as ccusage 20 does
// (see codex_replay.ts).
import { join } from "node:path";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import { forkPrefix, type ParentRecord, parentRecord, rolloutOrigin } from "./codex_replay.ts";
import { type ForkParents, type ParentCopy, RolloutParser } from "./codex_rollout.ts";
import { pendingFiles } from "./file_jobs.ts";
import { findFiles, readLineBatches } from "./jsonl_reader.ts";
import { ImportWriter } from "./import_writer.ts";
import { emptyStats, type ImportStats } from "./stats.ts";

/** Codex homes: CODEX_HOME (comma-separated), else ~/.codex. */
export function codexRoots(env: Env): string[] {
  const configured = env.CODEX_HOME?.split(",").map((s) => s.trim()).filter(Boolean);
  if (configured && configured.length) return configured;
  const home = env.HOME ?? env.USERPROFILE;
  return home ? [join(home, ".codex")] : [];
}

/** Options of a Codex import. */
export interface CodexImportOptions {
  readonly db: Db;
  readonly ids: Ids;
  /** Codex homes (with sessions/ inside) or sessions folders themselves. */
  readonly roots: readonly string[];
  readonly progress?: (done: number, total: number) => void;
  /** Records after which the import is written as a bulk load (see ImportWriter). */
  readonly bulkRecords?: number;
  /** Records per commit (tests make it small to spread an import over many commits). */
  readonly commitRecords?: number;
}

/** Imports Codex CLI rollouts: sessions, messages, tool calls, and one ledger row per response. */
export async function importCodex(options: CodexImportOptions): Promise<ImportStats> {
  const stats = emptyStats();
  const writer = new ImportWriter(options.db, options.ids, "codex", stats, {
    bulkRecords: options.bulkRecords,
    commitRecords: options.commitRecords,
  });
  const files: string[] = [];
  for (const root of options.roots) {
    const dirs = await hasDir(join(root, "sessions"))
      ? [join(root, "sessions"), join(root, "archived_sessions")]
      : [root];
    for (const d of dirs) files.push(...await findFiles(d, (n) => n.endsWith(".jsonl")));
  }
  const parents = new RolloutParents(files);
  // A grown file is re-read whole: the session's model and running totals come from its start.
  for (const job of pendingFiles(options.db, "codex", files, stats, { resume: false })) {
    options.progress?.(job.index, files.length);
    const parser = new RolloutParser(job.path, writer, parents);
    let offset = 0;
    try {
      for (const batch of readLineBatches(job.path, 0)) {
        for (const text of batch.lines) parser.line(text);
        offset = batch.offset;
        writer.commitIfFull();
      }
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
        stats.unreadable++;
        continue;
      }
      throw err;
    }
    parser.end();
    // Marked read only once whole: an import stopped inside a file reads it again.
    writer.fileRead(job.path, { size: job.size, mtimeMs: job.mtimeMs, offset });
    writer.commitIfFull();
  }
  writer.finish();
  options.progress?.(files.length, files.length);
  return stats;
}

/**
 * Finds a fork's parent among the import's files, as ccusage does: the first file whose
 * first line is the session_meta of that id. Rollouts are named after their session, so the
 * names are tried first; only a parent found under no name has every file's first line read.
 */
class RolloutParents implements ForkParents {
  readonly #files: readonly string[];
  #byId: Map<string, string> | null = null;
  #byName: Map<string, string[]> | null = null;
  readonly #records = new Map<string, ParentRecord>();

  constructor(files: readonly string[]) {
    this.#files = files;
  }

  find(id: string, child: string): string | null {
    let found = (this.#named().get(id) ?? []).find((f) => rolloutOrigin(f).id === id) ?? null;
    if (!found) {
      if (!this.#byId) {
        this.#byId = new Map();
        for (const f of this.#files) {
          const origin = rolloutOrigin(f).id;
          if (origin !== null && !this.#byId.has(origin)) this.#byId.set(origin, f);
        }
      }
      found = this.#byId.get(id) ?? null;
    } else {
      // The first file with that id wins, even if it is not named after it.
      const earlier = this.#byId?.get(id);
      if (earlier) found = earlier;
    }
    // A rollout naming itself as its parent would match its whole stream (ccusage's guard).
    return found === child ? null : found;
  }

  /** Files by the session id their name ends with (rollout-<time>-<uuid>), and by whole name. */
  #named(): Map<string, string[]> {
    if (this.#byName) return this.#byName;
    const byName = this.#byName = new Map<string, string[]>();
    const add = (key: string, file: string) => {
      const list = byName.get(key);
      if (list) list.push(file);
      else byName.set(key, [file]);
    };
    for (const f of this.#files) {
      const stem = (f.split("/").pop() ?? "").replace(/\.jsonl$/, "");
      add(stem, f);
      const uuid = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(stem);
      if (uuid) add(uuid[1]!, f);
    }
    return byName;
  }

  copy(parentPath: string, forkedAt: number | null): ParentCopy {
    let record = this.#records.get(parentPath);
    if (!record) this.#records.set(parentPath, record = parentRecord(parentPath));
    return {
      usage: forkPrefix(record.usage, forkedAt),
      lines: new Set(forkPrefix(record.lines, forkedAt).map((l) => l.hash)),
    };
  }
}

async function hasDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
