// `deno task bench peers`: peer sessions (P2, P3). Prints one JSON object.
//   deno run -A scripts/bench_peers.ts [--contenders 8] [--cycles 200] [--deliveries 60]
//                                      [--trials 1000] [--messages 10000]
// - lease: 8 processes take one project's write lease, commit under it and give it back,
//   over and over: the time of each acquire + commit + release, and the same alone.
// - delivery: a message sent to an idle REPL (a real `bonsai` process waiting at its
//   prompt) until the REPL prints it.
// - flush: a flush of one new message in a 10,000-message session, fenced by the epoch, and
//   the fence's statement alone.
// - mailbox: crash trials (scripts/lib/mail_trials.ts): 0 dropped, 0 applied twice.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Peers } from "../core/peers/peers.ts";
import { SessionStore } from "../core/storage/sessions.ts";
import {
  benchSession,
  bonsaiRunArgs,
  fillSession,
  progress,
  stats,
  timeFlushes,
} from "./lib/bench_util.ts";
import { Corpus } from "./lib/corpus.ts";
import { openHome, ownSession, peersOf } from "./lib/peer_process.ts";
import { runMailTrials } from "./lib/mail_trials.ts";
import { Prng } from "./lib/prng.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    contenders: { type: "string", default: "8" },
    cycles: { type: "string", default: "200" },
    deliveries: { type: "string", default: "60" },
    trials: { type: "string", default: "1000" },
    messages: { type: "string", default: "10000" },
  },
});
const CONTENDER = new URL("./lib/lease_contender.ts", import.meta.url).pathname;
const dir = await Deno.makeTempDir({ prefix: "bonsai-bench-peers-" });

try {
  const lease = await leaseContention(Number(values.contenders), Number(values.cycles));
  const alone = await leaseContention(1, Number(values.cycles));
  const delivery = await deliveryToIdleRepl(Number(values.deliveries));
  const flush = await fencedFlush(Number(values.messages));
  progress(`mailbox: ${values.trials} crash trials ...`);
  const mailbox = await runMailTrials({
    home: join(dir, "mail"),
    trials: Number(values.trials),
    seed: 1,
    onTrial: (n) => n % 100 === 0 && progress(`  ${n} trials`),
  });
  const report = {
    bench: "peers",
    lease_acquire_release: { contenders: Number(values.contenders), ...stats(lease) },
    lease_acquire_release_alone: stats(alone),
    delivery_to_idle_repl: stats(delivery),
    flush_at_messages: { messages: Number(values.messages), ...stats(flush.flush) },
    fence_statement: stats(flush.fence),
    mailbox_crash_trials: mailbox,
    targets: { flush_p99_ms: 2, delivery_p99_ms: 1000, dropped: 0, applied_twice: 0 },
    targets_met: stats(flush.flush).p99_ms <= 2 && stats(delivery).p99_ms <= 1000 &&
      mailbox.dropped === 0 && mailbox.applied_twice === 0 && mailbox.problems.length === 0,
  };
  console.log(JSON.stringify(report));
} finally {
  await Deno.remove(dir, { recursive: true });
}

/** `contenders` processes, `cycles` lease acquire + commit + release each: every sample. */
async function leaseContention(contenders: number, cycles: number): Promise<number[]> {
  progress(`lease: ${contenders} contenders x ${cycles} cycles ...`);
  const home = join(dir, `lease-${contenders}`);
  const db = await openHome(home);
  db.close();
  const children = Array.from({ length: contenders }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-check", CONTENDER, home, join(dir, "project"), String(cycles)],
      stdout: "piped",
      stderr: "inherit",
    }).spawn());
  // All of them start together, once each has opened the database.
  await new Promise((r) => setTimeout(r, 1_000));
  Deno.writeTextFileSync(join(home, "go"), "");
  const samples: number[] = [];
  for (const child of children) {
    const out = await child.output();
    if (!out.success) throw new Error("a lease contender failed");
    samples.push(...JSON.parse(new TextDecoder().decode(out.stdout)) as number[]);
  }
  return samples;
}

/** Messages to a real, idle REPL: from the send's commit until the REPL prints it. */
async function deliveryToIdleRepl(count: number): Promise<number[]> {
  progress(`delivery: ${count} messages to an idle REPL ...`);
  const home = join(dir, "repl-home");
  const project = join(dir, "repl-project");
  await Deno.mkdir(project, { recursive: true });
  const repl = new Deno.Command(Deno.execPath(), {
    args: bonsaiRunArgs(),
    cwd: project,
    // A configured provider that is never called: a plain message starts no turn.
    env: {
      BONSAI_HOME: home,
      NO_COLOR: "1",
      BONSAI_PROVIDER: "openai",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      OPENAI_API_KEY: "bench-not-a-key",
      BONSAI_MODEL: "gpt-4o",
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = repl.stdin.getWriter(); // kept open: the REPL waits at its prompt
  let screen = "";
  const reading = (async () => {
    for await (const chunk of repl.stdout.pipeThrough(new TextDecoderStream())) screen += chunk;
  })();
  const db = await waitForDatabase(home);
  const target = await waitFor(() =>
    new SessionStore(db).list({ projectPath: Deno.realPathSync(project), active: true })
      .find((s) => s.ownerPid === repl.pid)
  );
  const random = new Prng(3);
  const samples: number[] = [];
  let peers: Peers | null = null;
  for (let i = 0; i < count; i++) {
    // A sending session sends at most 30 messages an hour: a new one every 25.
    if (i % 25 === 0) peers = peersOf(db, ownSession(db, Deno.realPathSync(project)));
    // Sent at a random moment relative to the REPL's inbox look.
    await new Promise((r) => setTimeout(r, random.int(0, 600)));
    const text = `ping number ${i} end`;
    const t = performance.now();
    peers!.send(target.id, text);
    await waitFor(() => screen.includes(text) || null, 10_000);
    samples.push(performance.now() - t);
  }
  await writer.close();
  await repl.status;
  await reading;
  repl.stderr.cancel();
  db.close();
  return samples;
}

async function waitForDatabase(home: string) {
  await waitFor(() => {
    try {
      return Deno.statSync(join(home, "bonsai.db")).isFile || null;
    } catch {
      return null;
    }
  });
  return await openHome(home);
}

async function waitFor<T>(look: () => T | null | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = look();
    if (found !== null && found !== undefined) return found;
    if (performance.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** Flushes in a big session (fenced, as every flush is) and the fence statement alone. */
async function fencedFlush(messages: number): Promise<{ flush: number[]; fence: number[] }> {
  progress(`flush: a ${messages}-message session ...`);
  const { db, runtime } = await benchSession(join(dir, "flush"));
  try {
    const corpus = new Corpus(new Prng(7));
    fillSession(runtime, messages, corpus);
    const flush = timeFlushes(db, runtime, corpus, 2000);
    const store = new SessionStore(db);
    const fence: number[] = [];
    for (let i = 0; i < 2000; i++) {
      db.write(() => {
        const t = performance.now();
        store.fence(runtime.id, runtime.epoch);
        fence.push(performance.now() - t);
      });
    }
    return { flush, fence };
  } finally {
    db.close();
  }
}
