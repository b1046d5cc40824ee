import { z } from "zod";
import { BUDGET_OPTIONS, budgetLimits } from "../core/agent/budget_settings.ts";
import type { RunResult } from "../core/agent/loop.ts";
import { PermissionGate } from "../core/agent/permissions.ts";
import { BonsaiError } from "../core/errors.ts";
import { findProjectRoot } from "../core/project_root.ts";
import { runJson } from "../core/service/run_report.ts";
import { SELF_REVIEW_SETTING, VERIFY_SETTING } from "../core/service/session_service.ts";
import { sessionServiceFor } from "./service.ts";
import { HEARTBEAT_INTERVAL_MS } from "../core/session/liveness.ts";
import {
  endSession,
  findResumable,
  resumeSession,
  startSession,
} from "../core/session/lifecycle.ts";
import type { SessionRuntime } from "../core/session/runtime.ts";
import type { SessionStatus } from "../core/storage/sessions.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

/** How often a headless run flushes what streamed (the REPL's cadence, L2). */
const FLUSH_INTERVAL_MS = 500;

const RunOptions = z.object({
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

/** `bonsai -p "<prompt>"` / `bonsai run <prompt>`: one headless run; prints the answer or one JSON object. */
export async function runHeadless(
  world: World,
  prompt: string,
  raw: Record<string, unknown>,
): Promise<number> {
  const opts = parseOptions(RunOptions, raw);
  const text = prompt === "-" ? await readStdin() : prompt;
  if (text.trim() === "") throw new BonsaiError("USAGE", "The prompt is empty");
  const allow = parseAllow(opts.allow, opts.allowAll);
  const budgetFlags = Object.fromEntries(
    BUDGET_OPTIONS.map((o) => [o.flag, raw[camel(o.flag)] as string | undefined]),
  );
  const ui = uiFor(world);
  using db = await openDb(world);
  const service = sessionServiceFor(world, db);
  const limits = budgetLimits(service.settings(), budgetFlags);
  const root = findProjectRoot(world.cwd);
  const owner = { pid: world.pid, host: world.hostname };
  // Everything that can be refused is checked before the first write (R3).
  const resumable = opts.continue === undefined ? null : findResumable(db, {
    projectPath: root,
    prefix: opts.continue === true ? null : String(opts.continue),
    ownPid: world.pid,
    probe: world.probe,
  });
  const config = await service.provider(
    { provider: opts.provider, model: opts.model, reasoning: opts.reasoning },
    resumable
      ? { provider: resumable.provider, model: resumable.model, reasoning: resumable.reasoning }
      : null,
  );
  const runtime = resumable
    ? resumeSession(db, resumable, owner, world.probe)
    : startSession(db, world.ids, {
      projectPath: root,
      owner,
      provider: config.provider,
      model: config.model,
      reasoning: config.reasoning,
    });
  if (!resumable) runtime.setModel(config.provider, config.model, config.reasoning);
  const agent = service.agent(runtime, config, {
    permissions: new PermissionGate({ allow }),
    limits,
  });
  const started = world.clock.now();
  const { result, signal } = await runWithSignals(runtime, world, (s) =>
    agent.run(text, {
      signal: s,
      onEvent: (e) => {
        if (!opts.json && e.type === "retry") {
          ui.err(`bonsai: ${e.message}; retrying in ${(e.delayMs / 1000).toFixed(1)}s`);
        }
      },
    }));
  const saved = service.settings();
  const review = result.status === "cancelled" || signal !== null
    ? null
    : await service.review(runtime, config, {
      since: started,
      verify: opts.verify ?? savedString(saved, VERIFY_SETTING),
      selfReview: opts.selfReview ?? savedString(saved, SELF_REVIEW_SETTING) === "true",
      toolTimeoutMs: limits.toolTimeoutMs ?? null,
    });
  const [status, reason, detail] = terminalState(result, signal);
  endSession(runtime, status, reason, detail);
  const report = runJson(result, {
    sessionId: runtime.id,
    provider: config.provider,
    model: config.model,
    durationMs: world.clock.now() - started,
    review,
  });
  if (opts.json) {
    ui.json(report);
  } else {
    if (result.result) ui.out(result.result);
    if (result.budgetExhaustion) {
      const b = result.budgetExhaustion;
      ui.err(
        `bonsai: budget exhausted (${b.reason}: used ${round(b.used)} of ${
          round(b.limit)
        }); continue with: bonsai -c ${runtime.id.slice(0, 10)} -p ...`,
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
  if (review?.verification && review.verification.exitCode !== 0 && result.status === "completed") {
    return EXIT.VERIFY_FAILED;
  }
  if (signal === "SIGTERM") return EXIT.TERMINATED;
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
 * Runs with SIGINT/SIGTERM cancelling the run (which then persists its partial work),
 * a heartbeat every 3 s and a flush every 500 ms.
 */
async function runWithSignals(
  runtime: SessionRuntime,
  world: World,
  run: (signal: AbortSignal) => Promise<RunResult>,
): Promise<{ result: RunResult; signal: Deno.Signal | null }> {
  const controller = new AbortController();
  let received: Deno.Signal | null = null;
  const handlers = (["SIGINT", "SIGTERM"] as const).map((sig) => {
    const handler = () => {
      received ??= sig;
      controller.abort(sig);
    };
    Deno.addSignalListener(sig, handler);
    return [sig, handler] as const;
  });
  const heartbeat = setInterval(() => runtime.heartbeat(world.clock.now()), HEARTBEAT_INTERVAL_MS);
  const flusher = setInterval(() => runtime.flush(), FLUSH_INTERVAL_MS);
  try {
    const result = await run(controller.signal);
    return { result, signal: received };
  } finally {
    clearInterval(heartbeat);
    clearInterval(flusher);
    for (const [sig, handler] of handlers) Deno.removeSignalListener(sig, handler);
  }
}

function terminalState(
  result: RunResult,
  signal: Deno.Signal | null,
): [SessionStatus, string, string | null] {
  if (signal === "SIGTERM") return ["interrupted", "sigterm", null];
  switch (result.status) {
    case "completed":
      return ["completed", "completed", null];
    case "budget_exhausted": {
      const b = result.budgetExhaustion!;
      return ["budget_exhausted", b.reason, JSON.stringify({ limit: b.limit, used: b.used })];
    }
    case "cancelled":
      return ["cancelled", signal === "SIGINT" ? "sigint" : "cancelled", null];
    case "failed":
      return ["failed", "provider_error", result.error?.message ?? null];
  }
}

function savedString(saved: ReadonlyMap<string, string>, key: string): string | undefined {
  const raw = saved.get(key);
  if (raw === undefined) return undefined;
  const value = JSON.parse(raw);
  return typeof value === "string" ? value : String(value);
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function readStdin(): Promise<string> {
  return await new Response(Deno.stdin.readable).text();
}
