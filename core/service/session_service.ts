import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import { Agent } from "../agent/loop.ts";
import type { BudgetLimits, SessionUsage } from "../agent/budget.ts";
import type { ContextSettings } from "../agent/context_manager.ts";
import type { PermissionGate } from "../agent/permissions.ts";
import { type Finding, selfReview, verify } from "../agent/review.ts";
import { systemPrompt } from "../agent/system_prompt.ts";
import { ToolRegistry } from "../agent/tools/registry.ts";
import type { RecallHit } from "../agent/tools/tool.ts";
import {
  createClient,
  discoverLocalServer,
  NO_PROVIDER_HELP,
  type PinnedProvider,
  type ProviderConfig,
  type ProviderFlags,
  resolveProvider,
} from "../providers/config.ts";
import type { ModelClient } from "../providers/types.ts";
import type { Owner } from "../session/lifecycle.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { Db } from "../storage/db.ts";
import { type Lane, type LedgerEntry, LedgerStore } from "../storage/ledger.ts";
import type { VerificationRun } from "../storage/verification_runs.ts";
import { ProjectStore } from "../storage/projects.ts";
import { searchMessages } from "../storage/search.ts";
import { SettingsStore } from "../storage/settings.ts";
import { findModel } from "../usage/model_catalog.ts";

/** What the service needs from the world. */
export interface ServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly env: Env;
  readonly fetch: typeof fetch;
  readonly random: () => number;
  readonly owner: Owner;
  /** e.g. "linux"; part of the system prompt. */
  readonly platform: string;
}

/** Saved setting: a verification command run after runs that changed files (A4). */
export const VERIFY_SETTING = "verify.command";
/** Saved setting: "true" to self-review after runs that changed files. */
export const SELF_REVIEW_SETTING = "review.self";

/** What happened after a run (A4). */
export interface ReviewOutcome {
  readonly verification: VerificationRun | null;
  readonly reviewed: boolean;
  readonly findings: readonly Finding[];
  readonly ledger: readonly LedgerEntry[];
}

/** Context window assumed for models bonsai does not know. */
const DEFAULT_WINDOW = 128_000;

/** Context options a run may override (flags) over the saved ones. */
export interface ContextOverrides {
  readonly window?: number;
  /** Share of the window, 0-1. */
  readonly compactAt?: number;
  readonly mode?: "rule" | "model";
}

/** Saved setting keys of context management. */
export const CONTEXT_SETTINGS = {
  window: "context.window",
  compactAt: "context.compact_at",
  mode: "context.compaction",
} as const;

/** Context settings from flags, saved settings, the model's window, and defaults (70 %, rule). */
export function contextSettings(
  saved: ReadonlyMap<string, string>,
  flags: ContextOverrides,
  modelWindow: number | null,
): Omit<ContextSettings, "reserveTokens"> {
  const num = (key: string) => {
    const raw = saved.get(key);
    const v = raw === undefined ? NaN : Number(JSON.parse(raw));
    return Number.isFinite(v) ? v : null;
  };
  const savedMode = saved.get(CONTEXT_SETTINGS.mode);
  const window = flags.window ?? num(CONTEXT_SETTINGS.window) ?? modelWindow ?? DEFAULT_WINDOW;
  const compactAt = flags.compactAt ?? num(CONTEXT_SETTINGS.compactAt) ?? 0.7;
  if (!(compactAt > 0 && compactAt <= 1)) {
    throw new BonsaiError(
      "CONFIG",
      `The compaction threshold must be between 0 and 100 %, got ${compactAt * 100} %`,
    );
  }
  const mode = flags.mode ?? (savedMode && JSON.parse(savedMode) === "model" ? "model" : "rule");
  return { window, compactAt, keepFraction: Math.min(0.35, compactAt / 2), mode };
}

/** Output tokens asked for per response when the model's own limit is unknown or larger. */
const DEFAULT_MAX_OUTPUT = 16_000;

/**
 * The one session service every front end (REPL, headless, HTTP API) uses to turn a session
 * runtime into a working agent: provider resolution, tools, budgets, recall, usage.
 */
export class SessionService {
  readonly deps: ServiceDeps;

  constructor(deps: ServiceDeps) {
    this.deps = deps;
  }

  /** Saved global settings (JSON text values). */
  settings(): Map<string, string> {
    return new SettingsStore(this.deps.db).all();
  }

  /**
   * Resolves the provider: flags, environment, saved settings, or the resumed session's pinned
   * choice; with nothing configured, probes local OpenAI-compatible servers. Throws CONFIG
   * with exactly what to set when none is found.
   */
  async provider(flags: ProviderFlags, pinned: PinnedProvider | null): Promise<ProviderConfig> {
    const resolved = resolveProvider({ env: this.deps.env, flags, saved: this.settings(), pinned });
    if (resolved) return resolved;
    const local = await discoverLocalServer(this.deps.fetch);
    if (local) return flags.model ? { ...local, model: flags.model } : local;
    throw new BonsaiError("CONFIG", NO_PROVIDER_HELP);
  }

  /** A streaming client for the config. */
  client(config: ProviderConfig): ModelClient {
    const { fetch, clock, random } = this.deps;
    return createClient(config, { fetch, clock, random });
  }

  /** An agent over a session runtime. */
  agent(
    runtime: SessionRuntime,
    config: ProviderConfig,
    options: {
      permissions: PermissionGate;
      limits: BudgetLimits;
      lane?: Lane;
      client?: ModelClient;
      /** Overrides of the saved context settings for this run. */
      context?: ContextOverrides;
    },
  ): Agent {
    const root = runtime.session.projectPath;
    const project = new ProjectStore(this.deps.db).find(root);
    if (!project) throw new BonsaiError("INTERNAL", `Project '${root}' has no row`);
    const known = findModel(config.model);
    const context = contextSettings(
      this.settings(),
      options.context ?? {},
      known?.contextWindow ?? null,
    );
    const maxOutputTokens = Math.min(
      known?.maxOutput ?? DEFAULT_MAX_OUTPUT,
      DEFAULT_MAX_OUTPUT * 2,
      Math.floor(context.window / 4),
    );
    return new Agent(
      {
        runtime,
        client: options.client ?? this.client(config),
        tools: new ToolRegistry(),
        permissions: options.permissions,
        clock: this.deps.clock,
        env: this.deps.env,
        root,
        projectId: project.id,
        recall: (query, limit) => this.recall(root, query, limit),
        sessionUsage: () => this.sessionUsage(runtime),
      },
      {
        provider: config.provider,
        model: config.model,
        reasoning: config.reasoning,
        maxOutputTokens,
        lane: options.lane ?? "parent",
        systemPrompt: systemPrompt({ root, platform: this.deps.platform, shell: "sh" }),
        limits: options.limits,
        context: { ...context, reserveTokens: maxOutputTokens },
      },
    );
  }

  /**
   * A4, after a run that changed files: the verification command (if any) and a self-review
   * pass over the session's own diff (if asked). Both are stored with the session.
   */
  async review(
    runtime: SessionRuntime,
    config: ProviderConfig,
    options: {
      since: number;
      verify?: string;
      selfReview?: boolean;
      toolTimeoutMs: number | null;
      client?: ModelClient;
    },
  ): Promise<ReviewOutcome | null> {
    const changed = runtime.changedFiles.some((f) => f.lastAt >= options.since);
    if (!changed || (!options.verify && !options.selfReview)) return null;
    const root = runtime.session.projectPath;
    const deps = { db: this.deps.db, runtime, clock: this.deps.clock, env: this.deps.env, root };
    const verification = options.verify
      ? await verify(deps, options.verify, options.toolTimeoutMs)
      : null;
    let reviewed = false;
    let findings: readonly Finding[] = [];
    let ledger: readonly LedgerEntry[] = [];
    if (options.selfReview) {
      const project = new ProjectStore(this.deps.db).find(root);
      const outcome = await selfReview({
        ...deps,
        client: options.client ?? this.client(config),
        model: config.model,
        provider: config.provider,
        projectId: project!.id,
      });
      if (outcome) {
        reviewed = true;
        findings = outcome.findings;
        ledger = outcome.ledger;
      }
    }
    return { verification, reviewed, findings, ledger };
  }

  /** The session's cumulative usage from its persisted ledger (flushes first). */
  sessionUsage(runtime: SessionRuntime): SessionUsage {
    runtime.flush();
    const t = new LedgerStore(this.deps.db).totals(runtime.id);
    const reasons = [
      t.unpricedAttempts > 0 ? `${t.unpricedAttempts} turn(s) without a known price` : null,
      t.inexactAttempts > 0 ? `${t.inexactAttempts} turn(s) without exact usage` : null,
    ].filter((r) => r !== null);
    return {
      turns: t.turns,
      outputChars: t.outputChars,
      activeMs: runtime.activeMs(this.deps.clock.now()),
      costUsd: t.costUsd,
      costExact: reasons.length === 0,
      inexactReason: reasons.length ? reasons.join(", ") : null,
    };
  }

  /** recall: this project's past messages. */
  recall(projectPath: string, query: string, limit: number): RecallHit[] {
    return searchMessages(this.deps.db, query, { projectPath, limit }).map((h) => ({
      sessionId: h.sessionId,
      sessionTitle: h.sessionTitle,
      role: h.role,
      createdAt: h.createdAt,
      snippet: h.snippet,
    }));
  }
}
