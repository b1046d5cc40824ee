// Adds deterministic usage (ledger rows) to the sessions of a generated history, spread over
// the year before 2026-11-01, for the usage page's tests and benchmark:
//   deno run -A scripts/gen_ledger.ts --home DIR --rows N --seed S
// Run scripts/gen_history.ts on the same home first. Prints one JSON summary.
import { parseArgs } from "node:util";
import { homeAt } from "../core/home.ts";
import { createRedactor } from "../core/secrets.ts";
import { openDatabase } from "../core/storage/db.ts";
import { type LedgerEntry, LedgerStore } from "../core/storage/ledger.ts";
import { SessionStore } from "../core/storage/sessions.ts";
import { Prng } from "./lib/prng.ts";

const ANCHOR = Date.UTC(2026, 10, 1);
const YEAR = 365 * 86_400_000;
const MODELS = [
  { provider: "anthropic", model: "claude-sonnet-4-5", perMTok: 3, out: 15 },
  { provider: "anthropic", model: "claude-haiku-4-5", perMTok: 1, out: 5 },
  { provider: "openai", model: "gpt-4o", perMTok: 2.5, out: 10 },
  // No known price: its cost is null, so totals with it are floors.
  { provider: "openai", model: "local-unpriced", perMTok: 0, out: 0 },
];

/** Writes `rows` ledger rows over the home's sessions; returns how many. */
export async function generateLedger(
  options: { home: string; rows: number; seed: number; progress?: (done: number) => void },
): Promise<{ rows: number; sessions: number }> {
  const rng = new Prng(options.seed);
  const clock = { now: () => ANCHOR };
  const db = await openDatabase({ home: homeAt(options.home), clock, redactor: createRedactor() });
  try {
    const sessions = new SessionStore(db).list({ limit: 100_000 });
    if (sessions.length === 0) throw new Error("No sessions: run scripts/gen_history.ts first");
    const ledger = new LedgerStore(db);
    const batch = 20_000;
    for (let done = 0; done < options.rows; done += batch) {
      const entries: LedgerEntry[] = [];
      for (let i = done; i < Math.min(options.rows, done + batch); i++) {
        const s = sessions[rng.int(0, sessions.length - 1)]!;
        const m = MODELS[rng.next() < 0.97 ? rng.int(0, 2) : 3]!;
        const input = rng.int(50, 4000);
        const output = rng.int(20, 2000);
        const cacheRead = rng.int(0, 30_000);
        const cacheWrite = rng.next() < 0.2 ? rng.int(0, 5000) : 0;
        const cost = m.perMTok === 0
          ? null
          : (input * m.perMTok + output * m.out + cacheRead * m.perMTok * 0.1 +
            cacheWrite * m.perMTok * 1.25) / 1e6;
        entries.push({
          sessionId: s.id,
          projectId: s.projectId,
          lane: "parent",
          provider: m.provider,
          model: m.model,
          attempt: 1,
          requestId: null,
          responseId: null,
          inputTokens: input,
          outputTokens: output,
          cacheReadTokens: cacheRead,
          cacheWrite5mTokens: cacheWrite,
          cacheWrite1hTokens: 0,
          reasoningTokens: 0,
          usageExact: true,
          outputChars: output * 4,
          costUsd: cost,
          baselineCostUsd: cost === null ? null : cost + cacheRead * m.perMTok * 0.9 / 1e6,
          finishReason: "end_turn",
          error: null,
          latencyMs: rng.int(300, 9000),
          ttftMs: rng.int(100, 1500),
          prefixHash: null,
          prefixRewrite: false,
          expectedCacheReadPct: null,
          actualCacheReadPct: null,
          createdAt: ANCHOR - YEAR + Math.floor(rng.next() * YEAR),
        });
      }
      ledger.append(entries);
      options.progress?.(Math.min(options.rows, done + batch));
    }
    return { rows: options.rows, sessions: sessions.length };
  } finally {
    db.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      home: { type: "string" },
      rows: { type: "string", default: "10000" },
      seed: { type: "string", default: "1" },
    },
  });
  if (!values.home) {
    console.error("usage: gen_ledger.ts --home DIR [--rows N] [--seed S]");
    Deno.exit(2);
  }
  const started = performance.now();
  const result = await generateLedger({
    home: values.home,
    rows: Number(values.rows),
    seed: Number(values.seed),
    progress: (done) => Deno.stderr.writeSync(new TextEncoder().encode(`\rledger ${done}`)),
  });
  Deno.stderr.writeSync(new TextEncoder().encode("\n"));
  console.log(JSON.stringify({ ...result, elapsed_ms: Math.round(performance.now() - started) }));
}
