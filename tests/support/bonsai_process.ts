// Runs the real program (`deno run -A main.ts`) in a subprocess, for e2e tests.

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** The output of one run. */
export interface ProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Variables a test run must not inherit: provider keys and bonsai's own settings. */
const SCRUBBED =
  /^(BONSAI_|ANTHROPIC_|OPENAI_|NO_COLOR$|FORCE_COLOR$|COLUMNS$|TZ$|CLAUDE_CONFIG_DIR$|CODEX_HOME$)/;

/**
 * Environment every test run gets: this process's (so Deno finds its cache, proxies and
 * certificates) without provider keys or bonsai settings, plus a private BONSAI_HOME, no
 * colour, UTC.
 */
export function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([k]) => !SCRUBBED.test(k)),
  );
  return { ...inherited, BONSAI_HOME: home, NO_COLOR: "1", TZ: "UTC", ...extra };
}

/** Runs bonsai to the end. */
export function runBonsai(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<ProcessResult> {
  return runToEnd(Deno.execPath(), ["run", "-A", MAIN, ...args], options);
}

/** Runs a program to the end with only `env`, feeding it `stdin`; returns its exit code and output. */
export async function runToEnd(
  program: string,
  args: string[],
  options: { cwd?: string; env: Record<string, string>; stdin?: string },
): Promise<ProcessResult> {
  const child = new Deno.Command(program, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Starts bonsai and returns the child, for tests that signal or kill it. */
export function spawnBonsai(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Starts the REPL with a writable stdin (what the user types) and readable stdout. */
export function spawnRepl(
  options: { cwd: string; env: Record<string, string> },
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}
