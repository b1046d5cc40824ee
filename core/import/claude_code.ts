// Claude Code history import: the main thread finds the files and writes; a worker thread
// (claude_worker.ts) reads and parses them, so parsing and writing overlap.
import { join } from "node:path";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import type { ParseReply, ParseRequest } from "./claude_jobs.ts";
import { type FileJob, pendingFiles } from "./file_jobs.ts";
import { addStats, replayOps } from "./import_ops.ts";
import { ImportWriter } from "./import_writer.ts";
import { parseClaudeFiles } from "./claude_lines.ts";
import { findFiles } from "./jsonl_reader.ts";
import { emptyStats, type ImportStats } from "./stats.ts";
import { allSavedPrices } from "../usage/pricing_context.ts";

/** Where Claude Code keeps its data: CLAUDE_CONFIG_DIR (comma-separated), else ~/.claude and ~/.config/claude. */
export function claudeRoots(env: Env): string[] {
  const configured = env.CLAUDE_CONFIG_DIR?.split(",").map((s) => s.trim()).filter(Boolean);
  if (configured && configured.length) return configured;
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) return [];
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  return [join(home, ".claude"), join(xdg, "claude")];
}

/** The `projects` folder of a root (a root may also be that folder itself). */
function projectsDir(root: string): string {
  return root.replace(/\/+$/, "").endsWith("/projects") ? root : join(root, "projects");
}

/** Options of a Claude Code import. */
export interface ClaudeImportOptions {
  readonly db: Db;
  readonly ids: Ids;
  readonly roots: readonly string[];
  readonly progress?: (done: number, total: number) => void;
  /** Records after which the import is written as a bulk load (see ImportWriter). */
  readonly bulkRecords?: number;
  /** Records per commit (tests make it small to spread an import over many commits). */
  readonly commitRecords?: number;
  /**
   * Parse on a worker thread while this one writes: faster on big histories, but a second
   * JavaScript heap. Default: when more than PARALLEL_BYTES are to be read and the machine
   * has more than one core.
   */
  readonly parallel?: boolean;
}

/** Log bytes above which an import parses on a worker thread (starting one costs ~0.1 s). */
const PARALLEL_BYTES = 16 << 20;

/**
 * Imports Claude Code history: each transcript becomes a session (subagent files fold into
 * their parent session, lane `subagent`), its messages become searchable, each API response
 * one ledger row. Re-running adds nothing; a grown file adds only its new lines.
 */
export async function importClaudeCode(options: ClaudeImportOptions): Promise<ImportStats> {
  const stats = emptyStats();
  const writer = new ImportWriter(options.db, options.ids, "claude-code", stats, {
    bulkRecords: options.bulkRecords,
    commitRecords: options.commitRecords,
  });
  const files = new Set<string>();
  for (const root of options.roots) {
    for (const f of await findFiles(projectsDir(root), (n) => n.endsWith(".jsonl"))) files.add(f);
  }
  const all = [...files];
  const jobs = pendingFiles(options.db, "claude-code", all, stats, { resume: true });
  const pending = jobs.reduce((n, job) => n + job.size - job.from, 0);
  const sessions = new Map<string, string>();
  // A second thread only pays with a second core to run it on.
  const parallel = options.parallel ??
    (pending > PARALLEL_BYTES && navigator.hardwareConcurrency > 1);
  const started = parallel &&
    await parseInWorker(jobs, (batch) => {
      options.progress?.(batch.index, all.length);
      replayOps(batch.ops, writer, sessions);
      addStats(stats, batch.stats);
      if (batch.progress) writer.fileRead(batch.path, batch.progress);
      writer.commitIfFull();
    });
  if (!started) {
    // On this thread: small imports, or a worker that could not start.
    await parseClaudeFiles(jobs, writer, (job, offset) => {
      options.progress?.(job.index, all.length);
      if (offset !== null) {
        writer.fileRead(job.path, { size: job.size, mtimeMs: job.mtimeMs, offset });
      }
      writer.commitIfFull();
    });
  }
  writer.finish();
  options.progress?.(all.length, all.length);
  return stats;
}

/**
 * Parses the files on a worker thread, handing each batch to `write` in file order; the
 * worker stays a bounded distance ahead. Resolves false, having written nothing, when the
 * worker cannot start (its module missing from a build, say); otherwise rejects with the
 * first failure of either side.
 */
async function parseInWorker(
  jobs: readonly FileJob[],
  write: (batch: Extract<ParseReply, { kind: "batch" }>) => void,
): Promise<boolean> {
  if (jobs.length === 0) return true;
  let worker: Worker;
  try {
    worker = new Worker(new URL("./claude_worker.ts", import.meta.url).href, { type: "module" });
  } catch {
    return false;
  }
  const send = (request: ParseRequest) => worker.postMessage(request);
  try {
    return await new Promise<boolean>((resolve, reject) => {
      let settled = false;
      let replied = false;
      const fail = (err: unknown) => {
        if (!settled) reject(err);
        settled = true;
      };
      worker.onmessage = (event: MessageEvent<ParseReply>) => {
        if (settled) return;
        replied = true;
        const reply = event.data;
        if (reply.kind === "end") {
          settled = true;
          resolve(true);
        } else if (reply.kind === "error") {
          fail(new Error(`Reading Claude Code logs failed: ${reply.message}`));
        } else {
          try {
            write(reply);
            send({ kind: "ack", bytes: reply.bytes });
          } catch (err) {
            fail(err);
          }
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        if (!replied && !settled) {
          settled = true;
          resolve(false);
        } else fail(new Error(`Reading Claude Code logs failed: ${event.message}`));
      };
      send({ kind: "start", jobs, prices: allSavedPrices() });
    });
  } finally {
    worker.terminate();
  }
}
