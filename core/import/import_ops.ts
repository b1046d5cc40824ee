// A parser can run in a worker thread while the main thread writes: the worker records
// the sink calls its lines make, posts them in batches, and the main thread replays them
// on the ImportWriter in the same order.
import type { TitleSource } from "../storage/sessions.ts";
import type {
  ImportedCall,
  ImportedMessage,
  ImportedResult,
  ImportedUsage,
  ImportSink,
  ImportWriter,
  SessionInit,
} from "./import_writer.ts";
import { emptyStats, type ImportStats } from "./stats.ts";

/** One recorded sink call; sessions are named by their source key. */
export type ImportOp =
  | readonly ["session", string, SessionInit]
  | readonly ["title", string, string, TitleSource, number]
  | readonly ["model", string, string, string]
  | readonly ["message", string, ImportedMessage]
  | readonly ["usage", string, string | null, ImportedUsage]
  | readonly ["call", string, ImportedCall]
  | readonly ["result", string, string, ImportedResult];

/** Records sink calls until `take()`; a session's first sighting is recorded once. */
export class OpRecorder implements ImportSink {
  #stats = emptyStats();
  #ops: ImportOp[] = [];
  readonly #seen = new Set<string>();

  get stats(): ImportStats {
    return this.#stats;
  }

  /** The calls and counters since the last take. */
  take(): { ops: ImportOp[]; stats: ImportStats } {
    const out = { ops: this.#ops, stats: this.#stats };
    this.#ops = [];
    this.#stats = emptyStats();
    return out;
  }

  session(key: string, init: SessionInit): string {
    if (!this.#seen.has(key)) {
      this.#seen.add(key);
      this.#ops.push(["session", key, init]);
    }
    return key;
  }

  title(key: string, title: string, source: TitleSource, fallback = 0): void {
    this.#ops.push(["title", key, title, source, fallback]);
  }

  modelHint(key: string, provider: string, model: string): void {
    this.#ops.push(["model", key, provider, model]);
  }

  message(key: string, input: ImportedMessage): void {
    this.#ops.push(["message", key, input]);
  }

  usage(key: string, responseKey: string | null, entry: ImportedUsage): void {
    this.#ops.push(["usage", key, responseKey, entry]);
  }

  toolCall(key: string, call: ImportedCall): void {
    this.#ops.push(["call", key, call]);
  }

  toolResult(key: string, callId: string, result: ImportedResult): void {
    this.#ops.push(["result", key, callId, result]);
  }
}

/**
 * Replays recorded calls on the writer. `sessions` maps source keys to bonsai session ids
 * and lives as long as the recorder that produced the ops.
 */
export function replayOps(
  ops: readonly ImportOp[],
  writer: ImportWriter,
  sessions: Map<string, string>,
): void {
  const id = (key: string) => {
    const found = sessions.get(key);
    if (found === undefined) throw new Error(`import op for a session never announced: ${key}`);
    return found;
  };
  for (const op of ops) {
    switch (op[0]) {
      case "session":
        sessions.set(op[1], writer.session(op[1], op[2]));
        break;
      case "title":
        writer.title(id(op[1]), op[2], op[3], op[4]);
        break;
      case "model":
        writer.modelHint(id(op[1]), op[2], op[3]);
        break;
      case "message":
        writer.message(id(op[1]), op[2]);
        break;
      case "usage":
        writer.usage(id(op[1]), op[2], op[3]);
        break;
      case "call":
        writer.toolCall(id(op[1]), op[2]);
        break;
      case "result":
        writer.toolResult(id(op[1]), op[2], op[3]);
        break;
    }
  }
}

/** Adds a batch's counters to the import's. */
export function addStats(into: ImportStats, delta: ImportStats): void {
  for (const k of Object.keys(delta) as (keyof ImportStats)[]) into[k] += delta[k];
}
