import { budgetLimits } from "../../core/agent/budget_settings.ts";
import type { Agent } from "../../core/agent/loop.ts";
import {
  type PermissionAnswer,
  PermissionGate,
  type PermissionRequest,
} from "../../core/agent/permissions.ts";
import type { Clock } from "../../core/clock.ts";
import { BonsaiError, isBonsaiError } from "../../core/errors.ts";
import type { Ids } from "../../core/ids.ts";
import type { ProviderConfig, ProviderFlags } from "../../core/providers/config.ts";
import type { ContextOverrides, SessionService } from "../../core/service/session_service.ts";
import { Heartbeat } from "../../core/session/heartbeat.ts";
import {
  endSession,
  type Owner,
  resumeSession,
  startSession,
} from "../../core/session/lifecycle.ts";
import type { ProcessProbe } from "../../core/session/liveness.ts";
import { Persister, type Timers } from "../../core/session/persister.ts";
import type { SessionRuntime } from "../../core/session/runtime.ts";
import type { Db } from "../../core/storage/db.ts";
import { LedgerStore } from "../../core/storage/ledger.ts";
import { type Session, type SessionStatus, SessionStore } from "../../core/storage/sessions.ts";
import { renderStatusLine } from "../render/status_line.ts";
import type { Style } from "../render/style.ts";
import type { ReplContext, SlashCommand } from "../slash/command.ts";
import { findCommand, SLASH_COMMANDS, suggestCommand } from "../slash/registry.ts";
import { AgentView } from "./agent_view.ts";

/** How the REPL talks to the person (readline in a terminal; a script in tests). */
export interface ReplIO {
  write(text: string): void;
  readonly isTerminal: boolean;
  /** One line of input for a question (permission prompts). */
  question(prompt: string): Promise<string>;
  pick(
    message: string,
    choices: readonly { value: string; name: string }[],
  ): Promise<string | null>;
  confirm(message: string): Promise<boolean>;
}

/** What the REPL is built from. */
export interface ReplOptions {
  readonly db: Db;
  readonly service: SessionService;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly owner: Owner;
  readonly probe: ProcessProbe;
  /** Canonical project root. */
  readonly root: string;
  readonly providerFlags: ProviderFlags;
  readonly allow: ("write" | "exec")[];
  /** Budget flags given on the command line (they override saved presets). */
  readonly budgetFlags: Readonly<Record<string, string | undefined>>;
  readonly context: ContextOverrides;
  readonly io: ReplIO;
  readonly style: Style;
  readonly ascii: boolean;
  readonly width: () => number;
  readonly timeZone: string;
  readonly timers?: Timers;
  readonly onPersistError?: (err: unknown) => void;
}

/** How the REPL ended, for the session row. */
export type QuitReason = "quit" | "eof" | "sigint" | "sigterm" | "error";

/**
 * The interactive session (A1): prompts go to the agent, slash commands to their modules.
 * Persistence runs every 500 ms (L2) and a heartbeat every 3 s (L3); every way out flushes.
 */
export class Repl implements ReplContext {
  readonly #o: ReplOptions;
  #runtime: SessionRuntime;
  #agent: Agent | null = null;
  #config: ProviderConfig | null = null;
  #configError: string | null = null;
  readonly #persister: Persister;
  readonly #heartbeat: Heartbeat;
  #busy: AbortController | null = null;
  #closed = false;
  readonly commands: readonly SlashCommand[] = SLASH_COMMANDS;

  private constructor(options: ReplOptions, runtime: SessionRuntime) {
    this.#o = options;
    this.#runtime = runtime;
    this.#persister = new Persister(runtime, {
      timers: options.timers,
      onError: options.onPersistError,
    });
    this.#heartbeat = new Heartbeat(runtime, options.clock, options.timers);
  }

  /**
   * Opens the REPL on a fresh session, or resumes `target` (its pinned provider first, R2).
   * Refusals happen before anything is written (R3). A missing provider does not stop the
   * REPL: sessions, search and settings still work, and prompts say what to set.
   */
  static async open(options: ReplOptions, target: Session | null): Promise<Repl> {
    let config: ProviderConfig | null = null;
    let configError: string | null = null;
    try {
      config = await options.service.provider(
        options.providerFlags,
        target ? pinned(target) : null,
      );
    } catch (err) {
      if (!isBonsaiError(err, "CONFIG")) throw err;
      configError = err.message;
    }
    const runtime = target
      ? resumeSession(options.db, target, options.owner, options.probe)
      : startSession(options.db, options.ids, {
        projectPath: options.root,
        owner: options.owner,
        provider: config?.provider,
        model: config?.model,
        reasoning: config?.reasoning,
      });
    const repl = new Repl(options, runtime);
    repl.#config = config;
    repl.#configError = configError;
    repl.#agent = config ? repl.#makeAgent(runtime, config) : null;
    repl.#persister.start();
    repl.#heartbeat.start();
    return repl;
  }

  // --- ReplContext ---------------------------------------------------------------------

  get db(): Db {
    return this.#o.db;
  }
  get service(): SessionService {
    return this.#o.service;
  }
  get runtime(): SessionRuntime {
    return this.#runtime;
  }
  get agent(): Agent | null {
    return this.#agent;
  }
  get style(): Style {
    return this.#o.style;
  }
  get width(): number {
    return this.#o.width();
  }
  get ascii(): boolean {
    return this.#o.ascii;
  }
  get timeZone(): string {
    return this.#o.timeZone;
  }
  get isTerminal(): boolean {
    return this.#o.io.isTerminal;
  }
  get now(): number {
    return this.#o.clock.now();
  }
  /** Whether a reply or tool is running. */
  get busy(): boolean {
    return this.#busy !== null;
  }
  /** Why prompts cannot run, or null. */
  get configError(): string | null {
    return this.#configError;
  }

  print(text: string): void {
    this.#o.io.write(text);
  }

  confirm(message: string): Promise<boolean> {
    return this.#o.io.confirm(message);
  }

  pick(
    message: string,
    choices: readonly { value: string; name: string }[],
  ): Promise<string | null> {
    return this.#o.io.pick(message, choices);
  }

  async rotate(reason: "clear" | "new"): Promise<void> {
    const old = this.#runtime;
    const fresh = startSession(this.#o.db, this.#o.ids, {
      projectPath: this.#o.root,
      owner: this.#o.owner,
      provider: this.#config?.provider,
      model: this.#config?.model,
      reasoning: this.#config?.reasoning,
      parentId: old.id,
    });
    this.#adopt(fresh);
    this.#finish(old, "completed", reason);
    await Promise.resolve();
  }

  async resume(target: Session): Promise<void> {
    // Prepare first (R3): a provider that cannot be configured refuses the switch.
    const config = await this.#o.service.provider(this.#o.providerFlags, pinned(target));
    const old = this.#runtime;
    const runtime = resumeSession(this.#o.db, target, this.#o.owner, this.#o.probe);
    this.#config = config;
    this.#configError = null;
    this.#adopt(runtime);
    this.#finish(old, "completed", "switched");
  }

  // --- the loop ------------------------------------------------------------------------

  /** The status line shown before each prompt. */
  statusLine(): string {
    const s = this.#runtime.session;
    const totals = new LedgerStore(this.#o.db).totals(s.id);
    return renderStatusLine(
      {
        title: s.title,
        model: this.#config?.model ?? null,
        tokens: totals.inputTokens + totals.outputTokens + totals.cacheReadTokens +
          totals.cacheWriteTokens,
        costUsd: totals.costUsd,
        costFloor: totals.unpricedAttempts > 0 || totals.inexactAttempts > 0,
        waitingPeers: 0,
      },
      { style: this.#o.style, width: this.width, ascii: this.#o.ascii },
    );
  }

  /** Handles one input line; returns "quit" when the REPL should end. */
  async handle(line: string): Promise<"quit" | void> {
    const text = line.trim();
    if (text === "") return;
    if (text.startsWith("/")) return await this.#slash(text);
    await this.#prompt(line);
  }

  /** Ctrl-C: cancels the running reply or tool; false when nothing was running. */
  cancel(): boolean {
    if (!this.#busy) return false;
    this.#busy.abort("cancelled");
    return true;
  }

  /** Tab completion: slash commands, then their arguments (session ids, setting keys). */
  complete(line: string): [string[], string] {
    if (!line.startsWith("/")) return [[], line];
    const space = line.indexOf(" ");
    if (space < 0) {
      const names = this.commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]).map((n) =>
        `/${n}`
      );
      const hits = names.filter((n) => n.startsWith(line));
      return [hits.length ? hits : names, line];
    }
    const command = findCommand(line.slice(1, space));
    const partial = line.slice(space + 1);
    const options = command?.complete?.(this, partial) ?? [];
    return [options.map((o) => `${line.slice(0, space + 1)}${o}`), line];
  }

  /**
   * Leaves: stops the cadence with a final synchronous flush, records the terminal reason,
   * and drops the session if nothing was ever said in it. Safe to call twice.
   */
  close(reason: QuitReason): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#busy?.abort(reason);
    this.#heartbeat.stop();
    this.#persister.stop();
    const status: SessionStatus = reason === "sigterm"
      ? "interrupted"
      : reason === "error"
      ? "failed"
      : "completed";
    this.#finish(this.#runtime, status, reason);
  }

  async #slash(text: string): Promise<"quit" | void> {
    const space = text.indexOf(" ");
    const name = text.slice(1, space < 0 ? undefined : space);
    const args = space < 0 ? "" : text.slice(space + 1);
    const command = findCommand(name, this.commands);
    if (!command) {
      const guess = suggestCommand(name, this.commands);
      this.print(
        this.#o.style.yellow(
          `Unknown command /${name}.${guess ? ` Did you mean /${guess}?` : ""} /help lists them.\n`,
        ),
      );
      return;
    }
    try {
      return await command.run(this, args);
    } catch (err) {
      if (!(err instanceof BonsaiError)) throw err;
      this.print(this.#o.style.red(`${err.message}\n`));
    }
  }

  async #prompt(text: string): Promise<void> {
    if (!this.#agent) {
      this.print(this.#o.style.yellow(`${this.#configError ?? "No model is configured"}\n`));
      return;
    }
    this.#agent.setLimits(budgetLimits(this.#o.service.settings(), this.#o.budgetFlags));
    const view = new AgentView({
      write: (t) => this.print(t),
      style: this.#o.style,
      width: () => this.width,
      animate: this.#o.io.isTerminal,
      ascii: this.#o.ascii,
    });
    const controller = new AbortController();
    this.#busy = controller;
    try {
      const result = await this.#agent.run(text, {
        signal: controller.signal,
        onEvent: (e) => view.onEvent(e),
      });
      view.finish();
      const s = this.#o.style;
      if (result.status === "cancelled") {
        this.print(s.dim("(cancelled; what was written so far is kept)\n"));
      } else if (result.status === "failed") {
        this.print(s.red(`${result.error?.message ?? "failed"}\n`));
      } else if (result.budgetExhaustion) {
        const b = result.budgetExhaustion;
        this.print(
          s.yellow(
            `Budget exhausted: ${b.reason} (used ${round(b.used)} of ${
              round(b.limit)
            }). Send another prompt to go on.\n`,
          ),
        );
      }
      if (result.cost.enforcement && !result.cost.enforcement.enforced) {
        this.print(
          s.dim(
            `The session cost limit is not enforced exactly: ${result.cost.enforcement.reason}.\n`,
          ),
        );
      }
    } finally {
      view.settle();
      this.#busy = null;
    }
  }

  #makeAgent(runtime: SessionRuntime, config: ProviderConfig): Agent {
    const permissions = new PermissionGate({ allow: this.#o.allow, ask: (r) => this.#ask(r) });
    return this.#o.service.agent(runtime, config, {
      permissions,
      limits: budgetLimits(this.#o.service.settings(), this.#o.budgetFlags),
      context: this.#o.context,
    });
  }

  async #ask(request: PermissionRequest): Promise<PermissionAnswer> {
    const s = this.#o.style;
    const verb = request.kind === "exec" ? "Run" : "Write";
    for (;;) {
      const answer = (await this.#o.io.question(
        `${s.yellow("?")} ${verb} ${s.bold(request.summary)} ${s.dim(`(${request.tool})`)} — ${
          s.bold("y")
        }es once, ${s.bold("a")}lways this session, ${s.bold("n")}o: `,
      )).trim().toLowerCase();
      if (["y", "yes"].includes(answer)) return "once";
      if (["a", "always"].includes(answer)) return "always";
      if (["n", "no", ""].includes(answer)) return "deny";
    }
  }

  /** Makes `runtime` the current session: persistence, heartbeat and agent follow it. */
  #adopt(runtime: SessionRuntime): void {
    this.#runtime = runtime;
    this.#persister.switchTo(runtime);
    this.#heartbeat.switchTo(runtime);
    this.#agent = this.#config ? this.#makeAgent(runtime, this.#config) : null;
  }

  /** Ends a session (no longer current): final flush and typed reason; an empty one is not kept. */
  #finish(runtime: SessionRuntime, status: SessionStatus, reason: string): void {
    endSession(runtime, status, reason);
    if (runtime.lastSeq === 0) new SessionStore(this.#o.db, this.#o.ids).forget(runtime.id);
  }
}

function pinned(s: Session) {
  return { provider: s.provider, model: s.model, reasoning: s.reasoning };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
