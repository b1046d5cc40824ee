import type { BudgetLimits, SessionUsage } from "../agent/budget.ts";
import type { PermissionGate } from "../agent/permissions.ts";
import { BUILTIN_TOOLS } from "../agent/tools/registry.ts";
import type { SubagentJob, SubagentOutcome, SubagentPort } from "../agent/tools/tool.ts";
import { BonsaiError, messageOf } from "../errors.ts";
import type { Ids } from "../ids.ts";
import type { PeerPort } from "../peers/peers.ts";
import type { Workspace } from "../peers/workspace.ts";
import type { ProviderConfig } from "../providers/config.ts";
import { Heartbeat } from "../session/heartbeat.ts";
import { type Owner, startSession } from "../session/lifecycle.ts";
import { Persister, type Timers } from "../session/persister.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { Db } from "../storage/db.ts";
import type { AgentFactory, ContextOverrides } from "./agent_factory.ts";
import type { SavedSettings } from "./settings_catalog.ts";

/** Subagents running at once for one session; more task calls wait for a free place. */
export const MAX_SUBAGENTS = 4;

/** What a subagent works with: its parent's world, never wider. */
export interface SubagentDeps {
  readonly db: Db;
  readonly factory: AgentFactory;
  readonly ids: Ids;
  readonly owner: Owner;
  readonly clock: { now(): number };
  readonly timers?: Timers;
  readonly parent: SessionRuntime;
  readonly config: ProviderConfig;
  /** The parent's gate: the subagent asks through it (one question at a time). */
  readonly permissions: Pick<PermissionGate, "decide">;
  readonly workspace: Workspace;
  readonly peers: PeerPort;
  readonly limits: BudgetLimits;
  readonly saved: SavedSettings["context"];
  readonly context: ContextOverrides;
  /** The parent's session usage (session budgets count the subagents' rows too). */
  readonly sessionUsage: () => SessionUsage;
  readonly platform: string;
  /** A failure to save the child in the background (reported like the parent's). */
  readonly onError: (err: unknown) => void;
}

/**
 * The subagents of one session (the task tool): each runs through the agent in this process
 * with a fresh context, its own system prompt, the parent's workspace and permissions, and
 * a child session (linked by `parent_id`) that keeps its whole transcript, saved and
 * heartbeated like its parent's. Its usage rows go to the parent's session in lane
 * `subagent`, with the subagent's own model, so totals, budgets and /perf count them.
 */
export class Subagents implements SubagentPort {
  readonly #deps: SubagentDeps;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** Permission questions of subagents, one at a time. */
  #asking: Promise<unknown> = Promise.resolve();

  constructor(deps: SubagentDeps) {
    this.#deps = deps;
  }

  async run(job: SubagentJob, signal: AbortSignal): Promise<SubagentOutcome> {
    const tools = this.#tools(job.tools);
    await this.#slot(signal);
    try {
      return await this.#run(job, tools, signal);
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  async #run(job: SubagentJob, tools: string[], signal: AbortSignal): Promise<SubagentOutcome> {
    const d = this.#deps;
    const config = job.model ? { ...d.config, model: job.model } : d.config;
    const child = startSession(d.db, d.ids, {
      projectPath: d.parent.session.projectPath,
      owner: d.owner,
      provider: config.provider,
      model: config.model,
      reasoning: config.reasoning,
      parentId: d.parent.id,
      kind: "subagent",
    });
    child.setTitle(`Subagent: ${job.description}`, "derived");
    child.flush();
    const persister = new Persister(child, { timers: d.timers, onError: d.onError });
    const heartbeat = new Heartbeat(child, {
      clock: d.clock,
      timers: d.timers,
      activity: () => `subagent of ${d.parent.id.slice(0, 10)}`,
      onError: d.onError,
    });
    persister.start();
    heartbeat.start();
    try {
      const agent = d.factory.agent(child, config, {
        permissions: { decide: (request, s) => this.#ask(job, request, s) },
        workspace: d.workspace,
        peers: d.peers,
        limits: d.limits,
        saved: d.saved,
        context: d.context,
        serverWindow: config.model === d.config.model ? d.config.contextWindow ?? null : null,
        lane: "subagent",
        tools,
        ledgerSessionId: d.parent.id,
        sessionUsage: d.sessionUsage,
        systemPrompt: subagentPrompt(d.parent.session.projectPath, d.platform, job),
      });
      const result = await agent.run(job.prompt, {
        signal,
        onEvent: (e) => e.type === "usage" && job.onUsage(e.entry),
      });
      child.setStatus(
        result.status === "cancelled" ? "interrupted" : result.status,
        result.status === "cancelled" ? "cancelled" : result.status,
        result.error?.message ?? null,
      );
      return {
        sessionId: child.id,
        status: result.status,
        answer: result.result,
        model: config.model,
        turns: result.turns,
        changedFiles: child.changedFiles.map((f) => f.path),
        error: result.error?.message ??
          (result.budgetExhaustion
            ? `budget ${result.budgetExhaustion.reason} reached (${result.budgetExhaustion.used} of ${result.budgetExhaustion.limit})`
            : null),
      };
    } catch (err) {
      child.setStatus("failed", "error", messageOf(err));
      throw err;
    } finally {
      heartbeat.stop();
      persister.stop();
    }
  }

  /** The subagent's tools: what it asked for, within what the parent has, never `task`. */
  #tools(asked: readonly string[] | null): string[] {
    const parent = BUILTIN_TOOLS.map((t) => t.name).filter((n) => n !== "task");
    if (asked === null) return parent;
    const unknown = asked.filter((n) => !parent.includes(n));
    if (unknown.length) {
      throw new BonsaiError(
        "USAGE",
        `A subagent cannot have ${
          unknown.map((n) => `'${n}'`).join(", ")
        }: its tools must be among ${parent.join(", ")}`,
      );
    }
    return [...new Set(asked)];
  }

  #ask(
    job: SubagentJob,
    request: Parameters<PermissionGate["decide"]>[0],
    signal: AbortSignal,
  ): ReturnType<PermissionGate["decide"]> {
    const asked = this.#asking.then(() =>
      this.#deps.permissions.decide(
        { ...request, summary: `${request.summary} (subagent: ${job.description})` },
        signal,
      )
    );
    this.#asking = asked.catch(() => undefined);
    return asked;
  }

  async #slot(signal: AbortSignal): Promise<void> {
    while (this.#running >= MAX_SUBAGENTS) {
      if (signal.aborted) throw new BonsaiError("CANCELLED", "Cancelled before it started");
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    this.#running++;
  }
}

/** A subagent's system prompt: the job's frame, and that it answers once. */
function subagentPrompt(root: string, platform: string, job: SubagentJob): string {
  return `You are a bonsai subagent: another agent handed you one self-contained job ("${job.description}"). Work on it alone and end with one answer for that agent: what you found or did, and which files you changed.

Project root: ${root}
Platform: ${platform}; commands run with sh.

- Use the tools to read, search, change and run things; do not guess file contents. Paths are relative to the project root.
- Read a file before you edit it; prefer small exact edits.
- Writing files and running commands may need permission; if a tool is denied, do not retry it the same way.
- Be concise: your final message is all the other agent sees.`;
}
