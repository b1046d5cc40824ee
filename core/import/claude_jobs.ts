// The messages between a Claude Code import and its parsing worker (claude_worker.ts).
import type { ImportedFile } from "../storage/import_files.ts";
import type { FileJob } from "./file_jobs.ts";
import type { ImportOp } from "./import_ops.ts";
import type { ImportStats } from "./stats.ts";
import type { SavedPrice } from "../usage/pricing_context.ts";

/** At most this many bytes of log are parsed ahead of the writer (bounds memory). */
export const IN_FLIGHT_BYTES = 8 << 20;

/** Main thread to worker: the files to parse, then an acknowledgement per batch written. */
export type ParseRequest =
  | {
    readonly kind: "start";
    readonly jobs: readonly FileJob[];
    /** The saved prices (pricing state is per thread; the worker prices what it parses). */
    readonly prices: readonly SavedPrice[];
  }
  | { readonly kind: "ack"; readonly bytes: number };

/** Worker to main thread. */
export type ParseReply =
  | {
    readonly kind: "batch";
    readonly index: number;
    readonly path: string;
    /** How far the file has been read, or null when it could not be read. */
    readonly progress: ImportedFile | null;
    /** Bytes of the file this batch covers (what the acknowledgement gives back). */
    readonly bytes: number;
    readonly ops: ImportOp[];
    readonly stats: ImportStats;
  }
  | { readonly kind: "end" }
  | { readonly kind: "error"; readonly message: string };
