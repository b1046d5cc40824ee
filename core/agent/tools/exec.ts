import { z } from "zod";
import { capOutput, defineTool, type ToolResult } from "./tool.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/** What the model sees of the output; the database keeps all of it. */
const MODEL_OUTPUT_CHARS = 30_000;
/** Beyond this the database copy is cut too (a runaway `yes` should not fill the disk). */
const STORED_OUTPUT_CHARS = 20_000_000;
/** How long output pipes may stay open after the shell exits (a forgotten `&`). */
const DRAIN_GRACE_MS = 200;
const KILL_GRACE_MS = 2_000;

/** `exec`: runs a shell command in the project root, in its own process group. */
export const execTool = defineTool({
  name: "exec",
  description:
    `Run a shell command (sh -c) in the project root. stdout and stderr are combined. Default timeout ${
      DEFAULT_TIMEOUT_MS / 1000
    }s, max ${
      MAX_TIMEOUT_MS / 1000
    }s; the command and everything it started are killed at the timeout. Processes still running when the command exits are stopped. Output beyond ${MODEL_OUTPUT_CHARS} characters is cut in the middle.`,
  schema: z.object({
    command: z.string().min(1).describe("The shell command"),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe("Time limit in ms"),
    description: z.string().max(200).optional().describe("What the command does, in a few words"),
  }).strict(),
  permission: "exec",
  stopsOnAbort: true,
  describe: (a) => a.command.replace(/\s+/g, " ").slice(0, 120),
  subject: (a) => a.command,
  async run(args, ctx) {
    const limit = Math.min(args.timeout_ms ?? DEFAULT_TIMEOUT_MS, ctx.timeoutMs ?? Infinity);
    const started = ctx.clock.now();
    const child = new Deno.Command("sh", {
      args: ["-c", `exec 2>&1\n${args.command}`],
      cwd: ctx.root,
      env: Object.fromEntries(
        Object.entries(ctx.env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      detached: true, // its own process group, so the whole tree can be stopped
    }).spawn();
    const group = child.pid;
    let stopped: "timeout" | "cancelled" | null = null;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: "timeout" | "cancelled") => {
      if (stopped) return;
      stopped = why;
      killGroup(group, "SIGTERM");
      killTimer = setTimeout(() => killGroup(group, "SIGKILL"), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => stop("timeout"), limit);
    // The runner aborts with reason "timeout" when the budget's tool time limit is hit.
    const onAbort = () => stop(ctx.signal.reason === "timeout" ? "timeout" : "cancelled");
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    if (ctx.signal.aborted) onAbort();
    const chunks: string[] = [];
    let stored = 0;
    const decoder = new TextDecoder();
    const reading = (async () => {
      for await (const chunk of child.stdout) {
        const text = decoder.decode(chunk, { stream: true });
        if (stored < STORED_OUTPUT_CHARS) chunks.push(text);
        stored += text.length;
      }
    })();
    const status = await child.status;
    clearTimeout(timer);
    clearTimeout(killTimer);
    ctx.signal.removeEventListener("abort", onAbort);
    // Leftover background processes keep the pipe open: give them a moment, then stop them.
    const drained = await Promise.race([
      reading.then(() => true),
      sleep(DRAIN_GRACE_MS).then(() => false),
    ]);
    killGroup(group, "SIGKILL");
    if (!drained) await reading.catch(() => {});
    let full = chunks.join("");
    if (stored > STORED_OUTPUT_CHARS) full += `\n[output cut at ${STORED_OUTPUT_CHARS} characters]`;
    return finish(full, status, stopped, ctx.clock.now() - started, limit);
  },
});

function finish(
  full: string,
  status: Deno.CommandStatus,
  stopped: "timeout" | "cancelled" | null,
  durationMs: number,
  limit: number,
): ToolResult {
  const exitCode = status.code;
  let trailer: string;
  if (stopped === "timeout") {
    trailer = `[timed out after ${Math.round(limit / 100) / 10}s; the command was killed]`;
  } else if (stopped === "cancelled") trailer = "[cancelled by the user; the command was killed]";
  else if (status.signal) trailer = `[killed by ${status.signal}]`;
  else trailer = `[exit code ${exitCode}]`;
  const body = full.length ? `${full}${full.endsWith("\n") ? "" : "\n"}` : "";
  return {
    output: capOutput(body, MODEL_OUTPUT_CHARS) + trailer,
    fullOutput: body + trailer,
    isError: stopped !== null || exitCode !== 0,
    exitCode,
    timedOut: stopped === "timeout",
    summary: stopped ?? `exit ${exitCode} in ${Math.round(durationMs)}ms`,
  };
}

function killGroup(pgid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pgid, signal);
  } catch (err) {
    // ESRCH: the group is already gone.
    if (!(err instanceof Deno.errors.NotFound) && !String(err).includes("ESRCH")) throw err;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
