import { join } from "node:path";
import { SessionAdmin } from "../../core/service/session_admin.ts";
import { type HostOptions, SessionHost } from "../../core/service/session_host.ts";
import type { ProcessProbe } from "../../core/session/liveness.ts";
import type { Db } from "../../core/storage/db.ts";
import type { Session } from "../../core/storage/sessions.ts";
import { createStyle } from "../../tui/render/style.ts";
import { Repl, type ReplIO } from "../../tui/repl/repl.ts";
import { openTestDb, testIds } from "./db.ts";
import type { FakeClock } from "./fake_clock.ts";
import { LoopbackServer } from "./loopback_server.ts";
import { tempDir } from "./temp.ts";

/** A scripted person at the REPL: answers questions in order, records what was written. */
export class ScriptedIO implements ReplIO {
  output = "";
  readonly questions: string[] = [];
  constructor(private answers: string[] = [], readonly isTerminal = false) {}
  write(text: string): void {
    this.output += text;
  }
  question(prompt: string): Promise<string> {
    this.questions.push(prompt);
    return Promise.resolve(this.answers.shift() ?? "");
  }
  pick(message: string, choices: readonly { value: string }[]): Promise<string | null> {
    this.questions.push(message);
    const answer = this.answers.shift();
    return Promise.resolve(
      answer === undefined ? null : choices.find((c) => c.value.startsWith(answer))?.value ?? null,
    );
  }
  confirm(message: string): Promise<boolean> {
    this.questions.push(message);
    return Promise.resolve(/^y/i.test(this.answers.shift() ?? ""));
  }
  /** Output since the last call. */
  take(): string {
    const out = this.output;
    this.output = "";
    return out;
  }
}

/** Manual timers: nothing fires until the test says so. */
export class ManualTimers {
  readonly #fns = new Map<number, () => void>();
  /** The period every interval was registered with, in order. */
  readonly periods: number[] = [];
  #next = 1;
  setInterval(fn: () => void, ms: number): number {
    this.#fns.set(this.#next, fn);
    this.periods.push(ms);
    return this.#next++;
  }
  clearInterval(id: number): void {
    this.#fns.delete(id);
  }
  /** Runs every registered interval once. */
  fire(): void {
    for (const fn of [...this.#fns.values()]) fn();
  }
}

/** Options of a host (and REPL) harness. */
export interface HarnessOptions {
  answers?: string[];
  target?: (db: Db) => Session | null;
  root?: string;
  probe?: ProcessProbe;
  pid?: number;
  dir?: string;
  server?: LoopbackServer;
  env?: Record<string, string>;
  host?: Partial<HostOptions>;
}

/** A REPL over a real session host, database and the loopback server (Anthropic). */
export async function replHarness(options: HarnessOptions = {}) {
  const h = await hostHarness(options);
  const io = new ScriptedIO(options.answers ?? []);
  const repl = new Repl({
    host: h.host,
    admin: h.admin,
    clock: h.clock,
    io,
    style: createStyle(false),
    ascii: false,
    width: () => 100,
    timeZone: "UTC",
  });
  return { ...h, repl, io };
}

/**
 * A session host on a real database and the loopback server (Anthropic), with manual
 * timers; no front end is subscribed (permission requests wait for the test's answer).
 */
export async function hostHarness(options: HarnessOptions = {}) {
  const ownDir = options.dir ? null : await tempDir();
  const dir = options.dir ?? ownDir!.path;
  const root = options.root ?? join(dir, "work");
  await Deno.mkdir(root, { recursive: true });
  const canonicalRoot = await Deno.realPath(root);
  const { db, clock, ids } = await openTestDb(join(dir, "home"));
  const server = options.server ?? await LoopbackServer.start();
  const env = {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ...options.env,
  };
  const owner = { pid: options.pid ?? 4242, host: "test-host" };
  const probe = options.probe ?? (() => null);
  const timers = new ManualTimers();
  const target = options.target?.(db) ?? null;
  const host = await SessionHost.open(
    {
      db,
      clock,
      ids: testIds(clock, options.pid ?? 3),
      env,
      fetch,
      random: () => 0,
      owner,
      probe,
      platform: "linux",
      timers,
    },
    {
      root: canonicalRoot,
      providerFlags: {},
      allow: [],
      budgetFlags: {},
      context: {},
      interactive: true,
      providerOptional: true,
      ...options.host,
    },
    target ? { resume: { prefix: target.id } } : null,
  );
  const admin = new SessionAdmin({
    db,
    clock,
    ids,
    env,
    me: owner,
    probe,
    beforeRead: () => host.flush(),
  });
  return {
    db,
    clock: clock as FakeClock,
    ids,
    server,
    host,
    admin,
    timers,
    root: canonicalRoot,
    dir,
    rows<T = Record<string, unknown>>(sql: string, ...args: (string | number)[]): T[] {
      return db.connection.prepare(sql).all(...args).map((r) => ({ ...r })) as T[];
    },
    async [Symbol.asyncDispose]() {
      await host.close("quit");
      if (!options.server) await server.close();
      db.close();
      await ownDir?.[Symbol.asyncDispose]();
    },
  };
}
