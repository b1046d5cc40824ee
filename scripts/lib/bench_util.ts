// Shared helpers for benchmark scripts: percentiles, timing whole processes, data folders.
import { join } from "node:path";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom, ulidSource } from "../../core/ids.ts";
import { createRedactor } from "../../core/secrets.ts";
import { startSession } from "../../core/session/lifecycle.ts";
import { type Db, openDatabase } from "../../core/storage/db.ts";
import type { SessionRuntime } from "../../core/session/runtime.ts";
import type { Corpus } from "./corpus.ts";

/** The repository root. */
export const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Where generated benchmark data lives (git-ignored). */
export function benchDir(name: string): string {
  return join(ROOT, ".bench", name);
}

/** The p-th percentile (0-100) of samples, nearest-rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Rounds to 3 decimals for JSON output. */
export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Summary statistics in milliseconds. */
export function stats(
  samples: readonly number[],
): { runs: number; p50_ms: number; p95_ms: number; p99_ms: number; max_ms: number } {
  return {
    runs: samples.length,
    p50_ms: round(percentile(samples, 50)),
    p95_ms: round(percentile(samples, 95)),
    p99_ms: round(percentile(samples, 99)),
    max_ms: round(Math.max(...samples)),
  };
}

/**
 * How `deno task start` runs bonsai (permissions, V8 flags), from deno.json: benchmarks
 * measure bonsai as users run it, and as `deno task compile` builds it.
 */
export function bonsaiRunArgs(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const words = String(config.tasks.start).split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "main.ts") {
    throw new Error(`deno.json's start task is not 'deno run ... main.ts': ${config.tasks.start}`);
  }
  return [...words.slice(1, -1), join(ROOT, "main.ts")];
}

/** Wall time of running bonsai (as `deno task start` does) once, in ms; fails if it fails. */
export async function timeBonsai(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...bonsaiRunArgs(), ...args],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (!out.success) {
    throw new Error(`bonsai ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return elapsed;
}

/** Writes progress to stderr (benchmarks keep stdout for their one JSON object). */
export function progress(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`${text}\n`));
}

/** A home under `dir` with one live session, for in-process benchmarks (the caller removes `dir`). */
export async function benchSession(dir: string) {
  const db = await openDatabase({
    home: homeAt(join(dir, "home")),
    clock: systemClock,
    redactor: createRedactor(),
  });
  const ids = ulidSource(systemClock, cryptoRandom);
  const owner = { pid: Deno.pid, host: "bench" };
  const runtime = startSession(db, ids, { projectPath: dir, owner });
  return { db, ids, owner, runtime };
}

/**
 * Fills a session with `total` messages of ~200 characters (alternating user and assistant,
 * each with its context item), flushed every 500 as a long REPL session would be.
 */
export function fillSession(runtime: SessionRuntime, total: number, corpus: Corpus): void {
  for (let i = 0; i < total; i++) {
    const role = i % 2 === 0 ? "user" : "assistant";
    const text = corpus.message(200);
    const seq = runtime.addMessage({ role, text });
    runtime.addContext({ role, content: [{ type: "text", text }] }, seq);
    if (i % 500 === 499) runtime.flush();
  }
  runtime.flush();
}

/**
 * Times `count` flushes of one new message each (fenced by the session's epoch, as every
 * flush is), as in the REPL: flushes do not checkpoint; a checkpoint runs every 3 s.
 */
export function timeFlushes(
  db: Db,
  runtime: SessionRuntime,
  corpus: Corpus,
  count: number,
): number[] {
  db.setAutoCheckpoint(0);
  db.checkpoint();
  const samples: number[] = [];
  let lastCheckpoint = performance.now();
  for (let i = 0; i < count; i++) {
    if (performance.now() - lastCheckpoint > 3000) {
      db.checkpoint();
      lastCheckpoint = performance.now();
    }
    const text = corpus.message(200);
    const t = performance.now();
    const seq = runtime.addMessage({ role: "user", text });
    runtime.addContext({ role: "user", content: [{ type: "text", text }] }, seq);
    runtime.flush();
    samples.push(performance.now() - t);
  }
  return samples;
}
