import { z } from "zod";
import { BUDGET_OPTIONS } from "../core/agent/budget_settings.ts";
import { findProjectRoot } from "../core/project_root.ts";
import { sessionServiceFor } from "./service.ts";
import { findResumable } from "../core/session/lifecycle.ts";
import type { QuitReason } from "../tui/repl/repl.ts";
import { Repl } from "../tui/repl/repl.ts";
import { terminalSession } from "../tui/repl/terminal.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { parseAllow } from "./run.ts";
import type { World } from "./world.ts";

const ReplOptions = z.object({
  continue: z.union([z.string(), z.boolean()]).optional(),
  provider: z.string().optional(),
  model: z.string().min(1).optional(),
  reasoning: z.string().optional(),
  allow: z.string().optional(),
  allowAll: z.boolean().optional(),
  contextWindow: z.coerce.number().int().min(1000).optional(),
  compactAt: z.coerce.number().gt(0).max(100).optional(),
  compaction: z.enum(["rule", "model"]).optional(),
}).passthrough();

/** `bonsai` (and `bonsai -c [id]`): the interactive REPL for the project at the current directory. */
export async function runRepl(world: World, raw: Record<string, unknown>): Promise<number> {
  const opts = parseOptions(ReplOptions, raw);
  const allow = parseAllow(opts.allow, opts.allowAll);
  const ui = uiFor(world);
  using db = await openDb(world);
  const service = sessionServiceFor(world, db);
  const root = findProjectRoot(world.cwd);
  const target = opts.continue === undefined ? null : findResumable(db, {
    projectPath: root,
    prefix: opts.continue === true ? null : String(opts.continue),
    ownPid: world.pid,
    probe: world.probe,
  });
  const terminal = terminalSession({ style: ui.style });
  const repl = await Repl.open({
    db,
    service,
    clock: world.clock,
    ids: world.ids,
    owner: { pid: world.pid, host: world.hostname },
    probe: world.probe,
    root,
    providerFlags: { provider: opts.provider, model: opts.model, reasoning: opts.reasoning },
    allow,
    budgetFlags: Object.fromEntries(
      BUDGET_OPTIONS.map((o) => [o.flag, raw[camel(o.flag)] as string | undefined]),
    ),
    context: {
      window: opts.contextWindow,
      compactAt: opts.compactAt === undefined ? undefined : opts.compactAt / 100,
      mode: opts.compaction,
    },
    io: terminal.io,
    style: ui.style,
    ascii: ui.ascii,
    width: () => world.stdout.columns ?? ui.width,
    timeZone: ui.timeZone,
    onPersistError: (err) =>
      ui.err(`bonsai: could not save (will retry): ${err instanceof Error ? err.message : err}`),
  }, target);
  const s = repl.runtime.session;
  ui.out(`${ui.style.bold("bonsai")} ${ui.style.dim(`${world.version} · ${root}`)}`);
  if (target) {
    ui.out(
      ui.style.dim(`Resumed '${s.title}' (${s.messageCount} messages, ${s.model ?? "no model"}).`),
    );
  }
  if (repl.configError) ui.out(ui.style.yellow(repl.configError));
  ui.out(ui.style.dim("Type a request, or /help. Ctrl-C cancels, Ctrl-D quits."));
  // Every way out flushes first: signals, uncaught errors, the end of the loop.
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
    repl.close(reason);
    Deno.removeSignalListener("SIGTERM", onTerm);
    Deno.removeSignalListener("SIGINT", onInt);
    globalThis.removeEventListener("error", onError);
    globalThis.removeEventListener("unhandledrejection", onError);
  }
  if (reason === "sigterm") return EXIT.TERMINATED;
  if (reason === "error") return EXIT.FAILURE;
  return EXIT.OK;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
