import { z } from "zod";
import { BUDGET_OPTIONS } from "../core/agent/budget_settings.ts";
import { BonsaiError, isBonsaiError, messageOf } from "../core/errors.ts";
import { findProjectRoot } from "../core/project_root.ts";
import type { TurnOutcome } from "../core/service/end_state.ts";
import type { HostEvent } from "../core/service/host_events.ts";
import { runJson } from "../core/service/run_report.ts";
import { SessionHost } from "../core/service/session_host.ts";
import { openDb, parseOptions, type Ui, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { camel, hostDeps, withSignals } from "./service.ts";
import type { World } from "./world.ts";

/** The options `bonsai -p` and the REPL share (the REPL ignores --json). */
export const RunOptions = z.object({
  json: z.boolean().optional(),
  continue: z.union([z.string(), z.boolean()]).optional(),
  provider: z.string().optional(),
  model: z.string().min(1).optional(),
  reasoning: z.string().optional(),
  allow: z.string().optional(),
  allowAll: z.boolean().optional(),
  verify: z.string().min(1, "--verify needs a command").optional(),
  selfReview: z.boolean().optional(),
  contextWindow: z.coerce.number().int().min(1000, "must be at least 1000 tokens")
    .optional(),
  compactAt: z.coerce.number().gt(0).max(100, "is a percentage, at most 100")
    .optional(),
  compaction: z.enum(["rule", "model"], { message: "must be 'rule' or 'model'" })
    .optional(),
}).passthrough();

/** Parsed shared options. */
export type SharedOptions = z.infer<typeof RunOptions>;

/** Parses `--allow write,exec`. */
export function parseAllow(
  allow: string | undefined,
  all: boolean | undefined,
): ("write" | "exec")[] {
  if (all) return ["write", "exec"];
  if (!allow) return [];
  const out: ("write" | "exec")[] = [];
  for (const part of allow.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (part !== "write" && part !== "exec") {
      throw new BonsaiError(
        "USAGE",
        `--allow: unknown permission '${part}' (use write, exec or both: --allow write,exec)`,
      );
    }
    out.push(part);
  }
  return out;
}

/** The session host's options from the command line shared by `-p` and the REPL. */
export function hostOptions(
  world: World,
  opts: SharedOptions,
  raw: Record<string, unknown>,
  interactive: boolean,
) {
  return {
    root: findProjectRoot(world.cwd),
    providerFlags: { provider: opts.provider, model: opts.model, reasoning: opts.reasoning },
    allow: parseAllow(opts.allow, opts.allowAll),
    budgetFlags: Object.fromEntries(
      BUDGET_OPTIONS.map((o) => [o.flag, raw[camel(o.flag)] as string | undefined]),
    ),
    context: {
      window: opts.contextWindow,
      compactAt: opts.compactAt === undefined ? undefined : opts.compactAt / 100,
      mode: opts.compaction,
    },
    verify: opts.verify,
    selfReview: opts.selfReview,
    interactive,
  };
}

/** The session to continue (`-c [id]`), or null for a new one. */
export function hostTarget(opts: SharedOptions) {
  return opts.continue === undefined
    ? null
    : { resume: { prefix: opts.continue === true ? null : String(opts.continue) } };
}

/** `bonsai -p "<prompt>"` / `bonsai run <prompt>`: one headless run; prints the answer or one JSON object. */
export async function runHeadless(
  world: World,
  prompt: string,
  raw: Record<string, unknown>,
): Promise<number> {
  const opts = parseOptions(RunOptions, raw);
  const text = prompt === "-" ? await readStdin() : prompt;
  if (text.trim() === "") throw new BonsaiError("USAGE", "The prompt is empty");
  const options = hostOptions(world, opts, raw, false);
  const ui = uiFor(world);
  using db = await openDb(world);
  const host = await SessionHost.open(hostDeps(world, db), options, hostTarget(opts));
  host.subscribe((e) => renderEvent(ui, e, opts.json ?? false));
  const started = world.clock.now();
  let terminated = false;
  let outcome: TurnOutcome;
  try {
    outcome = await withSignals((sig) => {
      terminated ||= sig === "SIGTERM";
      host.cancel(sig === "SIGTERM" ? "sigterm" : "sigint");
    }, () => host.prompt(text));
  } catch (err) {
    await host.close(isBonsaiError(err, "SESSION_TAKEN") ? "taken" : "error", messageOf(err));
    throw err;
  }
  await host.close(terminated ? "sigterm" : "done");
  const { result, review } = outcome;
  const model = host.model!;
  if (opts.json) {
    ui.json(runJson(outcome, {
      sessionId: host.session.id,
      provider: model.provider,
      model: model.model,
      durationMs: world.clock.now() - started,
    }));
  } else {
    report(ui, outcome, host.session.id);
  }
  if (terminated) return EXIT.TERMINATED;
  if (outcome.cancelledBy !== null) return EXIT.CANCELLED;
  if (review?.verification && review.verification.exitCode !== 0 && result.status === "completed") {
    return EXIT.VERIFY_FAILED;
  }
  switch (result.status) {
    case "completed":
      return EXIT.OK;
    case "budget_exhausted":
      return EXIT.BUDGET_EXHAUSTED;
    case "cancelled":
      return EXIT.CANCELLED;
    case "failed":
      return EXIT.PROVIDER;
  }
}

/**
 * What a headless run shows while it works: retries and warnings, on stderr. With --json
 * stderr is kept for the one error object a failing run ends with.
 */
function renderEvent(ui: Ui, e: HostEvent, json: boolean): void {
  if (json) return;
  if (e.type === "retry") {
    ui.err(`bonsai: ${e.message}; retrying in ${(e.delayMs / 1000).toFixed(1)}s`);
  } else if (e.type === "notice" && e.level === "warning") {
    ui.err(`bonsai: ${e.message}`);
  } else if (e.type === "peer_message") {
    ui.err(
      `bonsai: ${e.kind === "wake" ? "woken by" : "message from"} '${e.fromTitle}' (${
        e.from.slice(0, 10)
      }): ${e.text}`,
    );
  }
}

/** The answer on stdout; budgets, failures, verification and findings on stderr. */
function report(ui: Ui, outcome: TurnOutcome, sessionId: string): void {
  const { result, review } = outcome;
  if (result.result) ui.out(result.result);
  if (result.budgetExhaustion) {
    const b = result.budgetExhaustion;
    ui.err(
      `bonsai: budget exhausted (${b.reason}: used ${round(b.used)} of ${
        round(b.limit)
      }); continue with: bonsai -c ${sessionId.slice(0, 10)} -p ...`,
    );
  }
  if (result.cost.enforcement && !result.cost.enforcement.enforced) {
    ui.err(
      `bonsai: the session cost limit could not be enforced exactly: ${result.cost.enforcement.reason}`,
    );
  }
  if (result.error && result.status === "failed") ui.err(`bonsai: ${result.error.message}`);
  if (review?.verification) {
    const v = review.verification;
    ui.err(
      `bonsai: verification \`${v.command}\` ${
        v.exitCode === 0 ? "passed" : `failed (exit ${v.exitCode ?? "timeout"})`
      }`,
    );
  }
  for (const f of review?.findings ?? []) {
    ui.err(`bonsai: review [${f.severity}] ${f.path ? `${f.path}: ` : ""}${f.message}`);
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function readStdin(): Promise<string> {
  return await new Response(Deno.stdin.readable).text();
}
