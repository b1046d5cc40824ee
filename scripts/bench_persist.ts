// Benchmark for the REPL's persistence (issue: REPL lifecycle). Prints one JSON object.
//   deno run -A scripts/bench_persist.ts [--messages 10000]
// With a 10,000-message session: a flush after one new message, an idle persister tick,
// and resuming the session (load everything, then the atomic switch).
import { parseArgs } from "node:util";
import { endSession, resumeSession } from "../core/session/lifecycle.ts";
import { Persister } from "../core/session/persister.ts";
import { SessionStore } from "../core/storage/sessions.ts";
import { Corpus } from "./lib/corpus.ts";
import { Prng } from "./lib/prng.ts";
import { benchSession, fillSession, progress, stats, timeFlushes } from "./lib/bench_util.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { messages: { type: "string", default: "10000" } },
});
const total = Number(values.messages);
const dir = await Deno.makeTempDir({ prefix: "bonsai-bench-persist-" });
try {
  const { db, ids, owner, runtime } = await benchSession(dir);
  const corpus = new Corpus(new Prng(7));
  progress(`building a ${total}-message session ...`);
  fillSession(runtime, total, corpus);
  const flush = timeFlushes(db, runtime, corpus, 2000);

  const persister = new Persister(runtime);
  const idle: number[] = [];
  let wrote = 0;
  const changesBefore =
    (db.connection.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
  for (let i = 0; i < 100_000; i++) {
    const t = performance.now();
    if (persister.tick()) wrote++;
    idle.push(performance.now() - t);
  }
  const changesAfter =
    (db.connection.prepare("SELECT total_changes() AS n").get() as { n: number }).n;

  endSession(runtime, "completed", "quit");
  const session = new SessionStore(db, ids).get(runtime.id);
  const resume: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const resumed = resumeSession(db, session, owner);
    resume.push(performance.now() - t);
    endSession(resumed, "completed", "quit");
  }
  db.close();
  const f = stats(flush);
  const idleStats = stats(idle);
  const r = stats(resume);
  console.log(JSON.stringify({
    bench: "persist",
    session_messages: total,
    flush_after_one_message: f,
    idle_tick: {
      ...idleStats,
      mean_ms: Number((idle.reduce((a, b) => a + b, 0) / idle.length).toFixed(5)),
      ticks_that_wrote: wrote,
      rows_changed: changesAfter - changesBefore,
    },
    resume: r,
    targets: { flush_p99_ms: 2, idle_tick_ms: 0.05, resume_ms: 100 },
    targets_met: f.p99_ms <= 2 && idleStats.p99_ms <= 0.05 && wrote === 0 && r.p50_ms <= 100,
  }));
} finally {
  await Deno.remove(dir, { recursive: true });
}
