// bonsai's composition root: builds the real world (clock, ids, terminal, environment),
// runs the command line, and turns errors into exit codes. Nothing else lives here.
import config from "./deno.json" with { type: "json" };
import { systemClock } from "./core/clock.ts";
import { BonsaiError } from "./core/errors.ts";
import { importLater } from "./core/modules.ts";
import { cryptoRandom, ulidSource } from "./core/ids.ts";
import { EXIT, exitCodeFor } from "./commands/exit_codes.ts";
import type { World } from "./commands/world.ts";
import { BrokenPipe, fileSink, inquirerPrompter } from "./tui/terminal.ts";

const world: World = {
  env: Deno.env.toObject(),
  cwd: Deno.cwd(),
  clock: systemClock,
  ids: ulidSource(systemClock, cryptoRandom),
  stdout: fileSink(Deno.stdout),
  stderr: fileSink(Deno.stderr),
  prompter: inquirerPrompter(),
  pid: Deno.pid,
  hostname: Deno.hostname(),
  fetch: globalThis.fetch.bind(globalThis),
  version: config.version,
  random: Math.random,
  randomBytes: cryptoRandom,
  probe: (pid, host) => {
    // Only this host's processes can be checked, and only where /proc exists.
    if (host !== Deno.hostname() || Deno.build.os !== "linux") return null;
    try {
      Deno.statSync(`/proc/${pid}`);
      return true;
    } catch {
      return false;
    }
  },
};

Deno.exit(await main(Deno.args));

async function main(args: string[]): Promise<number> {
  // The version needs no command-line parser: answer before loading one (commander is
  // CommonJS, and Deno's CommonJS loader costs ~50 ms to start).
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
    world.stdout.write(`bonsai ${world.version}\n`);
    return EXIT.OK;
  }
  try {
    const { runCli } = await importLater<typeof import("./commands/program.ts")>(
      new URL("./commands/program.ts", import.meta.url),
    );
    return await runCli(args, world);
  } catch (err) {
    return report(err, args);
  }
}

function report(err: unknown, args: readonly string[]): number {
  if (err instanceof BrokenPipe) return EXIT.OK; // the reader stopped reading: not our failure
  const debug = args.includes("--debug");
  const json = args.includes("--json");
  const known = err instanceof BonsaiError;
  const code = known ? exitCodeFor(err.code) : EXIT.FAILURE;
  const message = known
    ? err.message
    : `Internal error: ${err instanceof Error ? err.message : String(err)}`;
  try {
    if (json) {
      const body = known ? err.toJSON() : { code: "INTERNAL", message };
      world.stderr.write(`${JSON.stringify({ error: body })}\n`);
    } else {
      world.stderr.write(`bonsai: ${message}\n`);
    }
    if (debug && err instanceof Error && err.stack) world.stderr.write(`${err.stack}\n`);
    else if (!known) world.stderr.write("(run again with --debug for details)\n");
  } catch (writeErr) {
    if (!(writeErr instanceof BrokenPipe)) throw writeErr;
  }
  return code;
}
