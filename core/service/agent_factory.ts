import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { Env } from "../home.ts";
import { Agent } from "../agent/loop.ts";
import type { BudgetLimits, SessionUsage } from "../agent/budget.ts";
import type { ContextSettings } from "../agent/context_manager.ts";
import type { PermissionGate } from "../agent/permissions.ts";
import { type Finding, selfReview, verify } from "../agent/review.ts";
import { systemPrompt } from "../agent/system_prompt.ts";
import { ToolRegistry } from "../agent/tools/registry.ts";
import type { RecallHit, SubagentPort } from "../agent/tools/tool.ts";
import { createClient, type ProviderConfig } from "../providers/config.ts";
import type { PeerPort } from "../peers/peers.ts";
import type { Workspace } from "../peers/workspace.ts";
import type { ModelClient } from "../providers/types.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { Db } from "../storage/db.ts";
import { type Lane, type LedgerEntry, LedgerStore } from "../storage/ledger.ts";
import type { VerificationRun } from "../storage/verification_runs.ts";
import { ProjectStore } from "../storage/projects.ts";
import { searchMessages } from "../storage/search.ts";
import { findModel } from "../usage/model_catalog.ts";
import type { SavedSettings } from "./settings_catalog.ts";

/** What the factory needs from the world. */
export interface FactoryDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly env: Env;
  readonly fetch: typeof fetch;
  readonly random: () => number;
  /** e.g. "linux"; part of the system prompt. */
  readonly platform: string;
  /** Builds the model client for a config (tests inject one with a scripted sleep). */
  readonly client?: (config: ProviderConfig) => ModelClient;
}

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

/**
 * Context settings from flags, saved settings, the window the model (or its server) has,
 * and defaults (70 %, rule).
 */
export function contextSettings(
  saved: SavedSettings["context"],
  flags: ContextOverrides,
  modelWindow: number | null,
): Omit<ContextSettings, "reserveTokens"> {
  const window = flags.window ?? saved.window ?? modelWindow ?? DEFAULT_WINDOW;
  const compactAt = flags.compactAt ?? saved.compactAt ?? 0.7;
  if (!(compactAt > 0 && compactAt <= 1)) {
    throw new BonsaiError(
      "CONFIG",
      `The compaction threshold must be between 0 and 100 %, got ${compactAt * 100} %`,
    );
  }
  const mode = flags.mode ?? saved.mode ?? "rule";
  return { window, compactAt, keepFraction: Math.min(0.35, compactAt / 2), mode };
}

/** Output tokens asked for per response when the model's own limit is unknown or larger. */
const DEFAULT_MAX_OUTPUT = 16_000;

/**
 * Turns a session runtime into a working agent for the session host: the model client,
 * tools, budgets, context settings, recall and usage; and runs verification and
 * self-review after a run (A4). Front ends never use it directly.
 */
export class AgentFactory {
  readonly #deps: FactoryDeps;

  constructor(deps: FactoryDeps) {
    this.#deps = deps;
  }

  /** A streaming client for the config. */
  client(config: ProviderConfig): ModelClient {
    if (this.#deps.client) return this.#deps.client(config);
    const { fetch, clock, random } = this.#deps;
    return createClient(config, { fetch, clock, random });
  }

  /** An agent over a session runtime. */
  agent(
    runtime: SessionRuntime,
    config: ProviderConfig,
    options: {
      permissions: Pick<PermissionGate, "decide">;
      /** Writes of the shared workspace (the session's hold on the project's write lease). */
      workspace: Workspace;
      /** The session's peers (the peers tool). */
      peers: PeerPort;
      /** Deliveries from peers join the context at each turn boundary through this. */
      takeNotices?: () => void;
      limits: BudgetLimits;
      saved: SavedSettings["context"];
      context: ContextOverrides;
      /** The window the provider's server reported, when the model is not in the catalog. */
      serverWindow?: number | null;
      lane?: Lane;
      /** Only these tools (a subagent's set), default every built-in tool. */
      tools?: readonly string[];
      /** Usage rows go to this session (a subagent's to its parent's). */
      ledgerSessionId?: string;
      /** What session budgets count (a subagent counts its parent's session). */
      sessionUsage?: () => SessionUsage;
      /** Subagents for the task tool. */
      subagents?: SubagentPort;
      /** A different system prompt (a subagent's). */
      systemPrompt?: string;
    },
  ): Agent {
    const root = runtime.session.projectPath;
    const project = new ProjectStore(this.#deps.db).find(root);
    if (!project) throw new BonsaiError("INTERNAL", `Project '${root}' has no row`);
    const known = findModel(config.model);
    const context = contextSettings(
      options.saved,
      options.context,
      known?.contextWindow ?? options.serverWindow ?? null,
    );
    const maxOutputTokens = Math.min(
      known?.maxOutput ?? DEFAULT_MAX_OUTPUT,
      DEFAULT_MAX_OUTPUT * 2,
      Math.floor(context.window / 4),
    );
    return new Agent(
      {
        runtime,
        client: this.client(config),
        tools: options.tools ? new ToolRegistry().only(options.tools) : new ToolRegistry(),
        permissions: options.permissions,
        subagents: options.subagents,
        workspace: options.workspace,
        peers: options.peers,
        takeNotices: options.takeNotices,
        clock: this.#deps.clock,
        env: this.#deps.env,
        root,
        projectId: project.id,
        recall: (query, limit) => this.recall(root, query, limit),
        sessionUsage: options.sessionUsage ?? (() => this.sessionUsage(runtime)),
      },
      {
        provider: config.provider,
        model: config.model,
        reasoning: config.reasoning,
        maxOutputTokens,
        lane: options.lane ?? "parent",
        ledgerSessionId: options.ledgerSessionId,
        systemPrompt: options.systemPrompt ??
          systemPrompt({ root, platform: this.#deps.platform, shell: "sh" }),
        limits: options.limits,
        context: { ...context, reserveTokens: maxOutputTokens },
      },
    );
  }

  /**
   * A4, after a run that changed files (the caller knows): the verification command (if
   * any) and a self-review pass over the session's own diff (if asked). Both are stored
   * with the session; both stop when `signal` aborts.
   */
  async review(
    runtime: SessionRuntime,
    config: ProviderConfig,
    options: {
      verify: string | null;
      selfReview: boolean;
      toolTimeoutMs: number | null;
      signal: AbortSignal;
      /** Paths live peers changed: self-review leaves them out. */
      peerPaths?: ReadonlySet<string>;
    },
  ): Promise<ReviewOutcome | null> {
    if (!options.verify && !options.selfReview) return null;
    const root = runtime.session.projectPath;
    const deps = {
      db: this.#deps.db,
      runtime,
      clock: this.#deps.clock,
      env: this.#deps.env,
      root,
      signal: options.signal,
    };
    const verification = options.verify
      ? await verify(deps, options.verify, options.toolTimeoutMs)
      : null;
    let reviewed = false;
    let findings: readonly Finding[] = [];
    let ledger: readonly LedgerEntry[] = [];
    if (options.selfReview && !options.signal.aborted) {
      const project = new ProjectStore(this.#deps.db).find(root);
      const outcome = await selfReview({
        ...deps,
        client: this.client(config),
        model: config.model,
        provider: config.provider,
        projectId: project!.id,
        peerPaths: options.peerPaths,
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
    const t = new LedgerStore(this.#deps.db).totals(runtime.id);
    const reasons = [
      t.unpricedAttempts > 0 ? `${t.unpricedAttempts} response(s) without a known price` : null,
      t.inexactAttempts > 0 ? `${t.inexactAttempts} response(s) without exact usage` : null,
    ].filter((r) => r !== null);
    return {
      turns: t.turns,
      outputChars: t.outputChars,
      activeMs: runtime.activeMs(this.#deps.clock.now()),
      costUsd: t.costUsd,
      costExact: reasons.length === 0,
      inexactReason: reasons.length ? reasons.join(", ") : null,
    };
  }

  /** recall: this project's past messages. */
  recall(projectPath: string, query: string, limit: number): RecallHit[] {
    return searchMessages(this.#deps.db, query, { projectPath, limit }).map((h) => ({
      sessionId: h.sessionId,
      sessionTitle: h.sessionTitle,
      role: h.role,
      createdAt: h.createdAt,
      snippet: h.snippet,
    }));
  }
}
