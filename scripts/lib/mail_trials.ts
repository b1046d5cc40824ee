// The mailbox crash trials (P3): real processes send and consume peer messages, and one of
// them is killed with SIGKILL at a chosen point (a consumer at each phase of a delivery:
// before and after its lease, after the acknowledgement and after the effect inside the
// transaction, after the commit; either side at a random point). A fresh consumer then takes
// the session over and drains its deliveries. After every trial: no message reported sent
// is missing, every delivery is acknowledged, and every message's effect (a note in the
// transcript, a marked message in the context) is there exactly once.
// Used by tests/e2e/mailbox_crash_test.ts (a few trials) and bench_peers.ts (1,000).
import { join } from "node:path";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom, ulidSource } from "../../core/ids.ts";
import { createRedactor } from "../../core/secrets.ts";
import type { DeliveryPhase } from "../../core/service/peer_desk.ts";
import { endSession, startSession } from "../../core/session/lifecycle.ts";
import { type Db, openDatabase } from "../../core/storage/db.ts";
import { Prng } from "./prng.ts";

const PEER = new URL("./mail_peer.ts", import.meta.url).pathname;
const PROJECT = "/work/mail-trials";
/** Messages each trial's sender sends (at most 30 an hour per sending session). */
const PER_SENDER = 5;
const PHASES: readonly DeliveryPhase[] = ["due", "leased", "acknowledged", "applied", "committed"];

/** Where one trial's kill landed. */
export type KillPoint = `consumer:${DeliveryPhase}` | "consumer:random" | "sender:random";

/** Every kill point, in the order trials cycle through them. */
export const KILL_POINTS: readonly KillPoint[] = [
  ...PHASES.map((p) => `consumer:${p}` as const),
  "consumer:random",
  "sender:random",
];

export interface TrialsReport {
  readonly trials: number;
  readonly by_kill_point: Record<string, number>;
  readonly messages_sent: number;
  readonly messages_delivered: number;
  /** Messages a sender reported sent that never reached the consumer. */
  readonly dropped: number;
  /** Messages whose effect was applied more than once. */
  readonly applied_twice: number;
  /** Deliveries left unacknowledged after the drain. */
  readonly unacknowledged: number;
  readonly redeliveries: number;
  readonly duration_ms: number;
  /** The first problems found (empty when every trial held). */
  readonly problems: readonly string[];
}

/** A child process whose stdout is read line by line. */
class Peer {
  readonly #child: Deno.ChildProcess;
  readonly #lines: string[] = [];
  #waiters: (() => void)[] = [];
  #ended = false;
  readonly ended: Promise<Deno.CommandStatus>;

  constructor(args: string[]) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-check", PEER, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.ended = this.#read().then(() => this.#child.status);
  }

  async #read(): Promise<void> {
    let buffered = "";
    const stderr = this.#child.stderr.pipeTo(new WritableStream()); // drained, not shown
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      this.#lines.push(...lines);
      this.#wake();
    }
    await stderr.catch(() => {});
    this.#ended = true;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Waits for a line matching `pattern`; null when the process ended or time ran out first. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string | null> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.#lines.find((l) => pattern.test(l));
      if (found !== undefined) return found;
      if (this.#ended || performance.now() > deadline) return null;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** SIGKILL, and reaps the process (a zombie would still look alive to the liveness probe). */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.ended;
  }
}

/** Runs `trials` crash trials in `home` (created), cycling through the kill points. */
export async function runMailTrials(
  options: { home: string; trials: number; seed: number; onTrial?: (done: number) => void },
): Promise<TrialsReport> {
  const started = performance.now();
  const random = new Prng(options.seed);
  const db = await openDatabase({
    home: homeAt(options.home),
    clock: systemClock,
    redactor: createRedactor(),
  });
  const ids = ulidSource(systemClock, cryptoRandom);
  // The consumer session exists before any trial and is taken over by each consumer process.
  const consumer = startSession(db, ids, {
    projectPath: PROJECT,
    owner: { pid: 0, host: "nowhere" },
  });
  endSession(consumer, "interrupted", "crash_trials");
  const sessionId = consumer.id;
  const drained = join(options.home, "drained");
  const go = join(options.home, "go");
  const byPoint: Record<string, number> = {};
  const problems: string[] = [];
  const reported = new Set<string>();
  try {
    for (let t = 0; t < options.trials; t++) {
      const point = KILL_POINTS[t % KILL_POINTS.length]!;
      byPoint[point] = (byPoint[point] ?? 0) + 1;
      const nth = random.int(1, PER_SENDER);
      const phase = point.startsWith("consumer:") && point !== "consumer:random"
        ? point.slice("consumer:".length)
        : null;
      const first = new Peer([
        "consume",
        options.home,
        sessionId,
        ...(phase ? [phase, String(nth)] : []),
      ]);
      if ((await first.waitFor(/^ready$/)) === null) {
        problems.push(`trial ${t}: the consumer did not start`);
        await first.kill();
        continue;
      }
      // A consumer stopped inside its transaction holds the database's write lock: it starts
      // on the deliveries once the sender is done. Otherwise the two overlap.
      if (!phase) Deno.writeTextFileSync(go, "");
      const sender = new Peer([
        "send",
        options.home,
        PROJECT,
        sessionId,
        String(PER_SENDER),
        `t${t}`,
      ]);
      if (point === "sender:random") {
        // Killed after a random number of sends, a random moment later: before, inside or
        // after a post's transaction.
        const after = random.int(0, PER_SENDER - 1);
        if (after > 0) await sender.waitFor(new RegExp(`^sent t${t}-${after - 1}$`));
        await new Promise((r) => setTimeout(r, random.int(0, 2)));
        await sender.kill();
      } else {
        await sender.waitFor(/^done$/);
        await sender.ended;
      }
      for (const line of sender.lines) if (line.startsWith("sent ")) reported.add(line.slice(5));
      if (phase) {
        Deno.writeTextFileSync(go, "");
        if (
          (await first.waitFor(/^paused /, 15_000)) === null &&
          !sender.lines.some((l) => l.startsWith("refused"))
        ) {
          problems.push(`trial ${t}: the consumer never reached ${phase} of delivery ${nth}`);
        }
      } else if (point === "consumer:random") {
        await new Promise((r) => setTimeout(r, random.int(0, 20)));
      }
      if (point.startsWith("consumer:")) await first.kill();
      // A fresh consumer takes the session over and applies what is left.
      Deno.writeTextFileSync(drained, "");
      if (!point.startsWith("consumer:")) await waitOrKill(first, 30_000);
      const second = new Peer(["consume", options.home, sessionId]);
      const status = await waitOrKill(second, 30_000);
      Deno.removeSync(drained);
      Deno.removeSync(go);
      if (!status?.success) problems.push(`trial ${t}: the draining consumer failed (${point})`);
      problems.push(...check(db, sessionId, reported).map((p) => `trial ${t} (${point}): ${p}`));
      options.onTrial?.(t + 1);
      if (problems.length > 20) break;
    }
    const totals = check(db, sessionId, reported, true);
    return {
      trials: options.trials,
      by_kill_point: byPoint,
      messages_sent: reported.size,
      ...totals.counts,
      duration_ms: Math.round(performance.now() - started),
      problems: problems.slice(0, 20),
    };
  } finally {
    db.close();
  }
}

async function waitOrKill(peer: Peer, ms: number): Promise<Deno.CommandStatus | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((r) => timer = setTimeout(() => r(null), ms));
  const status = await Promise.race([peer.ended, late]);
  clearTimeout(timer);
  if (status === null) await peer.kill();
  return status;
}

interface Counts {
  messages_delivered: number;
  dropped: number;
  applied_twice: number;
  unacknowledged: number;
  redeliveries: number;
}

function check(db: Db, consumer: string, reported: ReadonlySet<string>): string[];
function check(
  db: Db,
  consumer: string,
  reported: ReadonlySet<string>,
  totals: true,
): { counts: Counts };
function check(
  db: Db,
  consumer: string,
  reported: ReadonlySet<string>,
  totals = false,
): string[] | { counts: Counts } {
  const problems: string[] = [];
  const posted = db.prepare(
    `SELECT m.id, m.body, d.acked_at, d.attempts FROM mailbox m
     JOIN deliveries d ON d.message_id = m.id AND d.consumer = ?`,
  ).all(consumer) as { id: number; body: string; acked_at: number | null; attempts: number }[];
  const notes = new Map<string, number>();
  for (
    const r of db.prepare(
      "SELECT external_id FROM messages WHERE session_id = ? AND external_id LIKE 'mail:%'",
    ).all(consumer) as { external_id: string }[]
  ) notes.set(r.external_id, (notes.get(r.external_id) ?? 0) + 1);
  const marked = new Map<string, number>();
  for (
    const r of db.prepare(
      "SELECT body FROM context_items WHERE session_id = ? AND role = 'user' AND body LIKE '%[Message from peer session%'",
    ).all(consumer) as { body: string }[]
  ) {
    const body = /\] (t\d+-\d+)"/.exec(r.body)?.[1] ?? "?";
    marked.set(body, (marked.get(body) ?? 0) + 1);
  }
  const bodies = new Set(posted.map((p) => p.body));
  let dropped = 0;
  for (const body of reported) {
    if (!bodies.has(body)) {
      dropped++;
      problems.push(`'${body}' was reported sent but is not in the mailbox`);
    }
  }
  const orphans = (db.prepare(
    "SELECT count(*) AS n FROM mailbox m WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id)",
  ).get() as { n: number }).n;
  if (orphans > 0) problems.push(`${orphans} messages were posted without their delivery`);
  let twice = 0;
  let unacked = 0;
  let redeliveries = 0;
  for (const p of posted) {
    const n = notes.get(`mail:${p.id}`) ?? 0;
    const c = marked.get(p.body) ?? 0;
    if (p.acked_at === null) {
      unacked++;
      problems.push(`'${p.body}' is not acknowledged`);
    }
    if (n === 0 || c === 0) {
      dropped++;
      problems.push(`'${p.body}' was acknowledged without its effect (${n} notes, ${c} context)`);
    }
    if (n > 1 || c > 1) {
      twice++;
      problems.push(`'${p.body}' was applied ${Math.max(n, c)} times`);
    }
    redeliveries += Math.max(0, p.attempts - 1);
  }
  if (!totals) return problems;
  return {
    counts: {
      messages_delivered: posted.length,
      dropped,
      applied_twice: twice,
      unacknowledged: unacked,
      redeliveries,
    },
  };
}
