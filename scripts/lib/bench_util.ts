// Shared helpers for benchmark scripts: percentiles, timing whole processes, data folders.
import { join } from "node:path";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom, ulidSource } from "../../core/ids.ts";
import { createRedactor } from "../../core/secrets.ts";
import { startSession } from "../../core/session/lifecycle.ts";
import { openDatabase } from "../../core/storage/db.ts";

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
