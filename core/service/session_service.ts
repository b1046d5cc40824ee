import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import { Agent } from "../agent/loop.ts";
import type { BudgetLimits, SessionUsage } from "../agent/budget.ts";
import type { PermissionGate } from "../agent/permissions.ts";
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
import { LedgerStore } from "../storage/ledger.ts";
import type { Lane } from "../storage/ledger.ts";
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
    },
  ): Agent {
    const root = runtime.session.projectPath;
    const project = new ProjectStore(this.deps.db).find(root);
    if (!project) throw new BonsaiError("INTERNAL", `Project '${root}' has no row`);
    const known = findModel(config.model);
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
        maxOutputTokens: Math.min(known?.maxOutput ?? DEFAULT_MAX_OUTPUT, DEFAULT_MAX_OUTPUT * 2),
        lane: options.lane ?? "parent",
        systemPrompt: systemPrompt({ root, platform: this.deps.platform, shell: "sh" }),
        limits: options.limits,
      },
    );
  }

  /** The session's cumulative usage from its persisted ledger (flushes first). */
  sessionUsage(runtime: SessionRuntime): SessionUsage {
    runtime.flush();
    const t = new LedgerStore(this.deps.db).totals(runtime.id);
    const reasons = [
      t.unpricedTurns > 0 ? `${t.unpricedTurns} turn(s) without a known price` : null,
      t.inexactUsageTurns > 0 ? `${t.inexactUsageTurns} turn(s) without exact usage` : null,
    ].filter((r) => r !== null);
    return {
      turns: t.completedTurns,
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
