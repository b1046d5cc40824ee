import type { Prompter, TextSink, World } from "../../commands/world.ts";
import type { Env } from "../../core/home.ts";
import { runCli } from "../../commands/program.ts";
import { BonsaiError } from "../../core/errors.ts";
import { exitCodeFor } from "../../commands/exit_codes.ts";
import { FakeClock } from "./fake_clock.ts";
import { testIds } from "./db.ts";

/** A sink that keeps what was written. */
export class CapturedSink implements TextSink {
  text = "";
  constructor(readonly isTerminal = false, readonly columns: number | null = null) {}
  write(text: string): void {
    this.text += text;
  }
}

/** A prompter that answers from a script and records the questions. */
export class ScriptedPrompter implements Prompter {
  readonly asked: string[] = [];
  constructor(readonly interactive: boolean, private answers: unknown[] = []) {}
  confirm(message: string): Promise<boolean> {
    this.asked.push(message);
    return Promise.resolve(Boolean(this.answers.shift()));
  }
  select<T extends string>(message: string): Promise<T> {
    this.asked.push(message);
    return Promise.resolve(this.answers.shift() as T);
  }
  password(message: string): Promise<string> {
    this.asked.push(message);
    return Promise.resolve(String(this.answers.shift()));
  }
}

/** A world for in-process command tests. */
export function testWorld(
  options: {
    home: string;
    cwd?: string;
    env?: Env;
    clock?: FakeClock;
    prompter?: Prompter;
    pid?: number;
  },
): { world: World; stdout: CapturedSink; stderr: CapturedSink; clock: FakeClock } {
  const clock = options.clock ?? new FakeClock();
  const stdout = new CapturedSink();
  const stderr = new CapturedSink();
  const world: World = {
    env: { BONSAI_HOME: options.home, NO_COLOR: "1", TZ: "UTC", ...options.env },
    cwd: options.cwd ?? options.home,
    clock,
    ids: testIds(clock, 7),
    stdout,
    stderr,
    prompter: options.prompter ?? new ScriptedPrompter(false),
    pid: options.pid ?? 4242,
    hostname: "test-host",
    fetch: () => Promise.reject(new Error("no network in tests")),
    version: "0.0.0-test",
    random: () => 0,
    randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
    probe: () => null,
  };
  return { world, stdout, stderr, clock };
}

/** Runs the CLI in-process like main.ts does; returns the exit code. */
export async function cli(world: World, ...args: string[]): Promise<number> {
  try {
    return await runCli(args, world);
  } catch (err) {
    if (err instanceof BonsaiError) {
      world.stderr.write(`bonsai: ${err.message}\n`);
      return exitCodeFor(err.code);
    }
    throw err;
  }
}
