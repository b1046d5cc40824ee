import { SessionHost } from "../core/service/session_host.ts";
import type { QuitReason } from "../tui/repl/repl.ts";
import { Repl } from "../tui/repl/repl.ts";
import { terminalSession } from "../tui/repl/terminal.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { hostOptions, hostTarget, RunOptions } from "./run.ts";
import { hostDeps, sessionAdmin } from "./service.ts";
import type { World } from "./world.ts";

/** `bonsai` (and `bonsai -c [id]`): the interactive REPL for the project at the current directory. */
export async function runRepl(world: World, raw: Record<string, unknown>): Promise<number> {
  const opts = parseOptions(RunOptions, raw);
  const options = { ...hostOptions(world, opts, raw, true), providerOptional: true };
  const target = hostTarget(opts);
  const ui = uiFor(world);
  using db = await openDb(world);
  const host = await SessionHost.open(hostDeps(world, db), options, target);
  const terminal = terminalSession({ style: ui.style });
  const repl = new Repl({
    host,
    admin: sessionAdmin(world, db, () => host.flush()),
    clock: world.clock,
    io: terminal.io,
    style: ui.style,
    ascii: ui.ascii,
    width: () => world.stdout.columns ?? ui.width,
    timeZone: ui.timeZone,
  });
  const s = host.session;
  ui.out(`${ui.style.bold("bonsai")} ${ui.style.dim(`${world.version} · ${options.root}`)}`);
  if (target) {
    ui.out(
      ui.style.dim(`Resumed '${s.title}' (${s.messageCount} messages, ${s.model ?? "no model"}).`),
    );
  }
  if (host.configError) ui.out(ui.style.yellow(host.configError));
  ui.out(ui.style.dim("Type a request, or /help. Ctrl-C cancels, Ctrl-D quits."));
  // Every way out goes through the host's close, which saves first.
  const onTerm = () => terminal.stop("sigterm");
  const onInt = () => {
    if (!repl.cancel()) terminal.stop("sigint");
  };
  Deno.addSignalListener("SIGTERM", onTerm);
  Deno.addSignalListener("SIGINT", onInt);
  const onError = (event: Event) => {
    event.preventDefault();
    const detail = (event as ErrorEvent).error ?? (event as PromiseRejectionEvent).reason;
    ui.err(`bonsai: unexpected error: ${detail instanceof Error ? detail.message : detail}`);
    terminal.stop("error");
  };
  globalThis.addEventListener("error", onError);
  globalThis.addEventListener("unhandledrejection", onError);
  let reason: QuitReason = "error";
  try {
    reason = await terminal.run(repl);
  } finally {
    try {
      await repl.close(reason);
    } finally {
      Deno.removeSignalListener("SIGTERM", onTerm);
      Deno.removeSignalListener("SIGINT", onInt);
      globalThis.removeEventListener("error", onError);
      globalThis.removeEventListener("unhandledrejection", onError);
    }
  }
  if (reason === "sigterm") return EXIT.TERMINATED;
  if (reason === "error") return EXIT.FAILURE;
  return EXIT.OK;
}
