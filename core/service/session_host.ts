import type { Agent } from "../agent/loop.ts";
import { budgetLimits } from "../agent/budget_settings.ts";
import type { ContextReport } from "../agent/context_report.ts";
import {
  type PermissionAnswer,
  PermissionGate,
  type PermissionRequest,
} from "../agent/permissions.ts";
import { BonsaiError, isBonsaiError, messageOf } from "../errors.ts";
import type { Ids } from "../ids.ts";
import type { PinnedProvider, ProviderConfig, ProviderFlags } from "../providers/config.ts";
import { forkUnsaved } from "../session/fork.ts";
import { Heartbeat } from "../session/heartbeat.ts";
import { findResumable, type Owner, resumeSession, startSession } from "../session/lifecycle.ts";
import type { ProcessProbe } from "../session/liveness.ts";
import { Persister, realTimers, type Timers } from "../session/persister.ts";
import { rewindPoints } from "../session/rewind_plan.ts";
import { type Plan, SessionRuntime } from "../session/runtime.ts";
import type { PeerPort } from "../peers/peers.ts";
import { LedgerStore, type LedgerTotals } from "../storage/ledger.ts";
import type { PromptEntry } from "../storage/prompts.ts";
import { cleanTitle, type Session, SessionStore } from "../storage/sessions.ts";
import { SettingsStore } from "../storage/settings.ts";
import { AgentFactory, type ContextOverrides, type FactoryDeps } from "./agent_factory.ts";
import {
  type CancelCause,
  type CloseReason,
  type EndState,
  endStateFor,
  type TurnOutcome,
} from "./end_state.ts";
import type { HostEvent } from "./host_events.ts";
import { denoRevertFiles, type RevertFiles } from "./file_revert.ts";
import { PeerDesk } from "./peer_desk.ts";
import { PermissionAdmin } from "./permission_admin.ts";
import { chooseProvider } from "./provider_choice.ts";
import {
  executeRewind,
  previewRewind,
  type RewindDeps,
  type RewindOptions,
  type RewindPreview,
  type RewindResult,
} from "./rewind.ts";
import { readSettings, type SavedSettings } from "./settings_catalog.ts";
import { Subagents } from "./subagents.ts";

/** What the host needs from the world. */
export interface HostDeps extends FactoryDeps {
  readonly ids: Ids;
  /** This process: it owns the sessions it runs. */
  readonly owner: Owner;
  readonly probe: ProcessProbe;
  /** The 500 ms flush and the 3 s heartbeat run on these (tests tick them by hand). */
  readonly timers?: Timers;
  /** The project files `/rewind` reverts (default: the real file system). */
  readonly files?: RevertFiles;
}

/** How a front end wants its sessions run. */
export interface HostOptions {
  /** Canonical project root: the session's workspace (X3). */
  readonly root: string;
  readonly providerFlags: ProviderFlags;
  /** Tool kinds allowed without asking (`--allow`). */
  readonly allow: readonly ("write" | "exec")[];
  /** Budget flags of this run; they override saved presets. */
  readonly budgetFlags: Readonly<Record<string, string | undefined>>;
  readonly context: ContextOverrides;
  /** `--verify`: overrides the saved `verify.command`. */
  readonly verify?: string;
  /** `--self-review`: overrides the saved `review.self`. */
  readonly selfReview?: boolean;
  /** A person can answer permission questions; otherwise write and exec are denied unless allowed. */
  readonly interactive: boolean;
  /**
   * Open even when no provider is configured (the REPL: sessions, search and settings still
   * work, and each prompt says what to set). Otherwise opening fails with the CONFIG error.
   */
  readonly providerOptional?: boolean;
}

/** Which session to run: a new one, or one to continue (the project's latest, or an id prefix). */
export type HostTarget = { readonly resume: { readonly prefix: string | null } } | null;

/** What the status line shows before each prompt. */
export interface StatusInfo {
  readonly title: string;
  readonly model: string | null;
  readonly tokens: number;
  readonly costUsd: number;
  /** The cost is a floor: a response had no known price or no exact usage. */
  readonly costFloor: boolean;
  /** Live peers waiting on this session (P1; 0 until peers exist). */
  readonly waitingPeers: number;
}

/** Longest a closing host waits for a cancelled turn to put its tools down. */
const CLOSE_WAIT_MS = 10_000;

interface RunningTurn {
  readonly controller: AbortController;
  cause: CancelCause | null;
  readonly done: Promise<unknown>;
  /** Given up on (it did not settle in time): what it still does is no longer the host's. */
  abandoned: boolean;
}

/**
 * The session host (DESIGN.md "The session host"): the one place that runs a session, for
 * every front end. It resolves the provider (with a resumed session's pinned choice),
 * refuses live and cross-project targets before writing anything, takes ownership in one
 * transaction, runs prompts through the agent with verification and self-review, keeps the
 * 500 ms persistence and the 3 s heartbeat (their failures are reported and retried, never
 * thrown from a timer), cancels, switches sessions, and records the typed end state. Front
 * ends render its events and answer its permission requests.
 */
export class SessionHost {
  readonly #deps: HostDeps;
  readonly #options: HostOptions;
  readonly #factory: AgentFactory;
  readonly #persister: Persister;
  readonly #heartbeat: Heartbeat;
  readonly #listeners = new Set<(event: HostEvent) => void>();
  /** Notices from before anyone listened (the first heartbeat runs at open). */
  readonly #unheard: HostEvent[] = [];
  /** The first exception a listener threw, rethrown when the turn ends. */
  #listenerFailure: unknown = null;
  readonly #questions = new Map<number, (answer: PermissionAnswer) => void>();
  #questionSeq = 0;
  #runtime: SessionRuntime;
  #config: ProviderConfig | null = null;
  #configError: string | null = null;
  #agent: Agent | null = null;
  #turn: RunningTurn | null = null;
  #last: TurnOutcome | null = null;
  #closed = false;
  /** A takeover a timer noticed while a turn ran: the work moves to a fork when it ends. */
  #takenOver: BonsaiError | null = null;
  /** The session's desk for its peers: the write lease, messages, wakes, claims (P2, P3). */
  #desk: PeerDesk;
  #inboxTimer: number | null = null;
  /** What this session is doing, for peers (sent with the heartbeat). */
  #activity = "idle";

  private constructor(deps: HostDeps, options: HostOptions, runtime: SessionRuntime) {
    this.#deps = deps;
    this.#options = options;
    this.#factory = new AgentFactory(deps);
    this.#runtime = runtime;
    this.#persister = new Persister(runtime, {
      timers: deps.timers,
      onError: (err) =>
        this.#timerFailed(err, `Could not save the session (will retry): ${messageOf(err)}`),
      onRecovered: () => this.#notice("info", "Saving works again; nothing was lost"),
    });
    this.#heartbeat = new Heartbeat(runtime, {
      clock: deps.clock,
      timers: deps.timers,
      activity: () => this.#activity,
      onError: (err) =>
        this.#timerFailed(err, `Could not stamp the heartbeat (will retry): ${messageOf(err)}`),
    });
    this.#desk = this.#makeDesk(runtime);
  }

  /**
   * Opens a host on a new session or resumes `target`. Everything that can be refused (an
   * unknown, live or other project's session; a provider that cannot be configured; a bad
   * saved setting) is checked before the first write; the resume itself is one transaction.
   */
  static async open(
    deps: HostDeps,
    options: HostOptions,
    target: HostTarget,
  ): Promise<SessionHost> {
    const { db } = deps;
    const resumable = target
      ? findResumable(db, {
        projectPath: options.root,
        prefix: target.resume.prefix,
        me: deps.owner,
        probe: deps.probe,
      })
      : null;
    let config: ProviderConfig | null = null;
    let configError: string | null = null;
    try {
      config = await chooseProvider(deps, {
        flags: options.providerFlags,
        pinned: resumable ? pinnedOf(resumable) : null,
        saved: readSettings(new SettingsStore(db)),
        windowFlag: options.context.window,
      });
    } catch (err) {
      if (!options.providerOptional || !isBonsaiError(err, "CONFIG")) throw err;
      configError = err.message;
    }
    const runtime = resumable
      ? resumeSession(db, resumable, deps.owner, deps.probe)
      : startSession(db, deps.ids, {
        projectPath: options.root,
        owner: deps.owner,
        provider: config?.provider,
        model: config?.model,
        reasoning: config?.reasoning,
      });
    const host = new SessionHost(deps, options, runtime);
    host.#config = config;
    host.#configError = configError;
    if (config) host.#agent = host.#makeAgent(runtime, config);
    host.#persister.start();
    host.#heartbeat.start();
    const timers = deps.timers ?? realTimers;
    host.#inboxTimer = timers.setInterval(() => host.#pollInbox(), INBOX_POLL_MS);
    return host;
  }

  // --- what front ends read ---------------------------------------------------------------

  /** The current session's row as this process last changed it. */
  get session(): Session {
    return this.#runtime.session;
  }

  /** The current plan and todos. */
  get plan(): Plan {
    return this.#runtime.plan;
  }

  /** The provider and model prompts go to, or null when none is configured. */
  get model(): { provider: string; model: string } | null {
    return this.#config ? { provider: this.#config.provider, model: this.#config.model } : null;
  }

  /** Why prompts cannot run (no provider, a bad saved setting), or null. */
  get configError(): string | null {
    return this.#configError;
  }

  /** Whether a turn (a reply, a tool, verification) is running. */
  get busy(): boolean {
    return this.#turn !== null;
  }

  /**
   * Receives every event until the returned function is called (and, first, the notices
   * raised before anyone listened). A listener that throws does not stop the turn: the
   * first such error is rethrown by `prompt()` once the turn is over.
   */
  subscribe(listener: (event: HostEvent) => void): () => void {
    this.#listeners.add(listener);
    for (const event of this.#unheard.splice(0)) this.#deliver(listener, event);
    return () => this.#listeners.delete(listener);
  }

  /** The current session's peers: list, messages, wakes, claims (P3). */
  get peers(): PeerPort {
    return this.#desk.port;
  }

  /** The status line's numbers (U3). */
  statusInfo(): StatusInfo {
    const s = this.#runtime.session;
    const t = new LedgerStore(this.#deps.db).totals(s.id);
    return {
      title: s.title,
      model: this.#config?.model ?? null,
      tokens: t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens,
      costUsd: t.costUsd,
      costFloor: t.unpricedAttempts > 0 || t.inexactAttempts > 0,
      waitingPeers: this.#desk.peers.waiting(),
    };
  }

  /** The current session's usage by lane and model (U3 `/perf`). */
  perf(): {
    title: string;
    id: string;
    totals: LedgerTotals;
    rows: ReturnType<LedgerStore["breakdown"]>;
    /** The sessions its subagents ran (their usage is in the rows, lane `subagent`). */
    subagents: Session[];
  } {
    this.flush();
    const ledger = new LedgerStore(this.#deps.db);
    const s = this.#runtime.session;
    return {
      title: s.title,
      id: s.id,
      totals: ledger.totals(s.id),
      rows: ledger.breakdown(s.id),
      subagents: new SessionStore(this.#deps.db).subagents(s.id),
    };
  }

  /** Where the context window goes right now (U3 `/ctx`). */
  contextReport(): ContextReport {
    if (!this.#agent) {
      throw new BonsaiError(
        "CONFIG",
        "No model is configured, so there is no context window to show",
      );
    }
    return this.#agent.contextReport();
  }

  // --- what front ends do -----------------------------------------------------------------

  /**
   * Runs one prompt to its end: the agent's turns and tools, then verification and
   * self-review when files changed (per flags, else saved settings). Events stream to the
   * subscribers; the outcome is also returned. Provider and tool failures are outcomes, not
   * exceptions; a bad saved setting or a missing provider is a CONFIG error.
   */
  prompt(text: string): Promise<TurnOutcome> {
    return this.#runTurn(text, 0);
  }

  /**
   * Goes on from the context as it stands, without a new prompt: what an interactive front
   * end calls on a `wake` event (a peer this session waited for has finished).
   */
  continueTurn(hops: number): Promise<TurnOutcome> {
    return this.#runTurn(null, hops);
  }

  async #runTurn(text: string | null, hops: number): Promise<TurnOutcome> {
    if (this.#closed) throw new TypeError("SessionHost.prompt() after close()");
    if (this.#turn) {
      throw new BonsaiError("USAGE", "A reply is still running; wait for it or cancel it first");
    }
    const controller = new AbortController();
    let finish = () => {};
    const turn: RunningTurn = {
      controller,
      cause: null,
      done: new Promise<void>((resolve) => (finish = resolve)),
      abandoned: false,
    };
    this.#turn = turn;
    try {
      const saved = this.#settings();
      const agent = await this.#readyAgent(saved);
      agent.setLimits(budgetLimits(saved.budgets, this.#options.budgetFlags));
      const writesBefore = writes(this.#runtime);
      const result = await agent.run(text, {
        signal: controller.signal,
        onEvent: (e) => this.#emit(e),
      });
      const changed = writes(this.#runtime) > writesBefore;
      const review = !changed || result.status === "cancelled" || controller.signal.aborted
        ? null
        : await this.#review(saved, controller.signal);
      const outcome: TurnOutcome = { result, review, cancelledBy: turn.cause };
      if (!turn.abandoned) {
        this.#last = outcome;
        this.#desk.fireWakes(hops, result.status, result.result);
        this.#emit({ type: "turn_end", outcome });
      }
      const failure = this.#listenerFailure;
      this.#listenerFailure = null;
      if (failure !== null) throw failure;
      if (this.#takenOver) throw this.#takenOver;
      return outcome;
    } catch (err) {
      if (!isBonsaiError(err, "SESSION_TAKEN") || turn.abandoned) throw err;
      // Another process took the session while this turn ran: it was stopped without
      // writing; its work goes on in a fork, and the person is told how to open either.
      throw this.#divert(err, false);
    } finally {
      if (this.#turn === turn) this.#turn = null;
      this.#activity = "idle";
      finish();
    }
  }

  /** Cancels the running turn (Ctrl-C, a signal); false when nothing was running. */
  cancel(cause: CancelCause = "user"): boolean {
    const turn = this.#turn;
    if (!turn) return false;
    turn.cause ??= cause;
    turn.controller.abort(cause);
    return true;
  }

  /** Answers a `permission_request` event. Unknown or settled ids are ignored. */
  answerPermission(id: number, answer: PermissionAnswer): void {
    const settle = this.#questions.get(id);
    this.#questions.delete(id);
    settle?.(answer);
  }

  /**
   * Records a prompt without running a turn (an API client that only appends); the next
   * turn answers it with whatever else was said.
   */
  addPrompt(text: string): number {
    if (this.#turn) {
      throw new BonsaiError("SESSION_BUSY", "A reply is still running; wait for it or cancel it");
    }
    const seq = this.#runtime.addMessage({ role: "user", text });
    this.#runtime.addContext({ role: "user", content: [{ type: "text", text }] }, seq);
    this.flush();
    return seq;
  }

  /** Renames the current session (a person's title wins over the agent's). */
  rename(title: string): void {
    this.#runtime.setTitle(cleanTitle(title), "user");
    this.flush();
  }

  /** Pins or unpins the current session. */
  setPinned(pinned: boolean): void {
    new SessionStore(this.#deps.db).setPinned(this.#runtime.id, pinned);
  }

  /** Saves what changed now (before reading the database elsewhere); failures are reported, not thrown. */
  flush(): void {
    this.#persister.tick();
  }

  /**
   * `/new`, `/clear`: ends the current session (a running turn is cancelled and settled
   * first) and continues in a fresh one with a new cache key, linked by `parent_id`.
   */
  async rotate(reason: "new" | "clear"): Promise<Session> {
    await this.#settleTurn("user");
    const old = this.#runtime;
    const fresh = startSession(this.#deps.db, this.#deps.ids, {
      projectPath: this.#options.root,
      owner: this.#deps.owner,
      provider: this.#config?.provider,
      model: this.#config?.model,
      reasoning: this.#config?.reasoning,
      parentId: old.id,
    });
    this.#adopt(fresh);
    this.#finish(old, endStateFor(reason, null));
    this.#emit({ type: "session", session: fresh.session, reason });
    return fresh.session;
  }

  /**
   * `/resume`: switches to another session of this project. Refusals (unknown, live, other
   * project, imported, no provider for its pinned choice) change nothing.
   */
  async resume(prefix: string): Promise<Session> {
    const target = findResumable(this.#deps.db, {
      projectPath: this.#options.root,
      prefix,
      me: this.#deps.owner,
      probe: this.#deps.probe,
    });
    if (target.id === this.#runtime.id) {
      throw new BonsaiError("USAGE", `'${target.title}' is already the current session`);
    }
    const config = await chooseProvider(this.#deps, {
      flags: this.#options.providerFlags,
      pinned: pinnedOf(target),
      saved: this.#settings(),
      windowFlag: this.#options.context.window,
    });
    await this.#settleTurn("user");
    const old = this.#runtime;
    const runtime = resumeSession(this.#deps.db, target, this.#deps.owner, this.#deps.probe);
    this.#config = config;
    this.#configError = null;
    this.#adopt(runtime);
    this.#finish(old, endStateFor("switched", null));
    this.#emit({ type: "session", session: runtime.session, reason: "resumed" });
    return runtime.session;
  }

  /** The current session's user prompts: the steps `/rewind` can go back to (before each). */
  rewindPoints(): PromptEntry[] {
    this.flush();
    return rewindPoints(this.#deps.db, this.#runtime.id);
  }

  /** What rewinding the current session would move and revert; changes nothing. */
  previewRewind(options: RewindOptions): Promise<RewindPreview> {
    this.#runtime.flush();
    return previewRewind(this.#rewindDeps(), this.#runtime.session, options);
  }

  /**
   * `/rewind`: rolls the current session back to before its prompt at `options.to` (see
   * SessionAdmin.rewind). A running turn is cancelled and settled and everything unsaved
   * is saved first; the session is then reloaded as stored, so the model's context, plan
   * and file knowledge are those of that step. Pass the preview the person confirmed.
   */
  async rewind(options: RewindOptions, preview?: RewindPreview): Promise<RewindResult> {
    await this.#settleTurn("user");
    this.#runtime.flush();
    const deps = this.#rewindDeps();
    const planned = preview ?? await previewRewind(deps, this.#runtime.session, options);
    const id = this.#runtime.id;
    return await executeRewind(deps, planned, options, () => {
      this.#adopt(SessionRuntime.load(this.#deps.db, id));
    });
  }

  #rewindDeps(): RewindDeps {
    const { db, ids, clock, owner, probe } = this.#deps;
    return { db, ids, clock, me: owner, probe, files: this.#deps.files ?? denoRevertFiles };
  }

  /**
   * Ends the host: cancels and settles a running turn, stops the heartbeat and the cadence,
   * records the typed end state and saves everything in one last flush (which throws when
   * it cannot write: the caller reports it). A session in which nothing was said is not
   * kept. Safe to call twice.
   */
  async close(reason: CloseReason, detail: string | null = null): Promise<EndState> {
    const state = endStateFor(reason, this.#last, detail);
    if (this.#closed) return state;
    this.#closed = true;
    await this.#settleTurn(reason === "sigterm" || reason === "sigint" ? reason : "user");
    if (this.#inboxTimer !== null) {
      (this.#deps.timers ?? realTimers).clearInterval(this.#inboxTimer);
    }
    this.#heartbeat.stop();
    this.#runtime.setStatus(state.status, state.reason, state.detail);
    try {
      this.#persister.stop();
    } catch (err) {
      if (!isBonsaiError(err, "SESSION_TAKEN")) throw err;
      // Taken over while idle (suspended): what was not saved ends in a fork of its own.
      this.#divert(err, true);
      this.#runtime.setStatus(state.status, state.reason, state.detail);
      this.#persister.stop();
    }
    // The session ends: peers waiting for it are woken too (nothing more will come).
    try {
      this.#desk.fireWakes(0, state.status, "");
    } catch (err) {
      this.#warn(`Could not wake the peers waiting for this session: ${messageOf(err)}`);
    }
    this.#dropIfEmpty(this.#runtime);
    return state;
  }

  // --- inside -------------------------------------------------------------------------------

  #settings(): SavedSettings {
    return readSettings(new SettingsStore(this.#deps.db));
  }

  /** The agent, resolving the provider now if it could not be at open (a key set since). */
  async #readyAgent(saved: SavedSettings): Promise<Agent> {
    if (this.#agent) return this.#agent;
    const pinned = this.#runtime.session.provider ? pinnedOf(this.#runtime.session) : null;
    try {
      this.#config = await chooseProvider(this.#deps, {
        flags: this.#options.providerFlags,
        pinned,
        saved,
        windowFlag: this.#options.context.window,
      });
    } catch (err) {
      if (isBonsaiError(err, "CONFIG")) this.#configError = err.message;
      throw err;
    }
    this.#configError = null;
    if (!pinned) {
      this.#runtime.setModel(this.#config.provider, this.#config.model, this.#config.reasoning);
    }
    this.#agent = this.#makeAgent(this.#runtime, this.#config);
    return this.#agent;
  }

  #makeAgent(runtime: SessionRuntime, config: ProviderConfig): Agent {
    const saved = this.#settings();
    const permissions = new PermissionGate({
      allow: this.#options.allow,
      ask: this.#options.interactive ? (request, signal) => this.#ask(request, signal) : null,
      rules: new PermissionAdmin(this.#deps.db, this.#deps.ids).gateRules(this.#options.root),
      root: this.#options.root,
    });
    const limits = budgetLimits(saved.budgets, this.#options.budgetFlags);
    const subagents = new Subagents({
      db: this.#deps.db,
      factory: this.#factory,
      ids: this.#deps.ids,
      owner: this.#deps.owner,
      clock: this.#deps.clock,
      timers: this.#deps.timers,
      parent: runtime,
      config,
      permissions,
      workspace: this.#desk.workspace,
      peers: this.#desk.port,
      limits,
      saved: saved.context,
      context: this.#options.context,
      sessionUsage: () => this.#factory.sessionUsage(runtime),
      platform: this.#deps.platform,
      onError: (err) =>
        this.#warn(`Could not save a subagent's session (will retry): ${messageOf(err)}`),
    });
    return this.#factory.agent(runtime, config, {
      permissions,
      workspace: this.#desk.workspace,
      peers: this.#desk.port,
      takeNotices: () => void this.#desk.deliver(false),
      limits,
      saved: saved.context,
      context: this.#options.context,
      serverWindow: config.contextWindow ?? null,
      subagents,
    });
  }

  #ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const id = ++this.#questionSeq;
    return new Promise<PermissionAnswer>((resolve) => {
      this.#questions.set(id, resolve);
      signal.addEventListener("abort", () => this.#questions.delete(id), { once: true });
      this.#emit({ type: "permission_request", id, request });
    });
  }

  /** A4 after a turn that changed files: verification and self-review, per flags or settings. */
  async #review(saved: SavedSettings, signal: AbortSignal) {
    const verify = this.#options.verify ?? saved.verifyCommand;
    const selfReview = this.#options.selfReview ?? saved.selfReview;
    if (!this.#config || (!verify && !selfReview)) return null;
    this.#emit({ type: "review_start", verify, selfReview });
    const limits = budgetLimits(saved.budgets, this.#options.budgetFlags);
    return await this.#factory.review(this.#runtime, this.#config, {
      verify,
      selfReview,
      toolTimeoutMs: limits.toolTimeoutMs ?? null,
      signal,
      peerPaths: this.#desk.peers.peerChangedPaths(),
    });
  }

  /**
   * Cancels a running turn and waits until it has put everything down: a cancelled turn
   * stops its stream and kills its tools at once, but one that does not settle in time is
   * abandoned (its late outcome is not this host's any more).
   */
  async #settleTurn(cause: CancelCause): Promise<void> {
    const turn = this.#turn;
    if (!turn) return;
    this.cancel(cause);
    const timers = this.#deps.timers ?? realTimers;
    let timer: number | undefined;
    const settled = await Promise.race([
      turn.done.then(() => true),
      new Promise<boolean>((
        resolve,
      ) => (timer = timers.setInterval(() => resolve(false), CLOSE_WAIT_MS))),
    ]);
    if (timer !== undefined) timers.clearInterval(timer);
    if (!settled) {
      turn.abandoned = true;
      this.#turn = null;
    }
  }

  /** Makes `runtime` the current session: persistence, heartbeat, peers and agent follow it. */
  #adopt(runtime: SessionRuntime): void {
    this.#runtime = runtime;
    this.#desk = this.#makeDesk(runtime);
    this.#persister.switchTo(runtime);
    this.#heartbeat.switchTo(runtime);
    this.#last = null;
    this.#agent = null;
    if (!this.#config) return;
    try {
      this.#agent = this.#makeAgent(runtime, this.#config);
    } catch (err) {
      // A bad saved setting: the session still switches; prompts say what to fix.
      if (!isBonsaiError(err, "CONFIG")) throw err;
      this.#configError = err.message;
    }
  }

  /**
   * Ends a session that is no longer current: typed state, final flush; an empty one is not
   * kept. One taken over meanwhile writes nothing: its unsaved work ends in a fork.
   */
  #finish(runtime: SessionRuntime, state: EndState): void {
    runtime.setStatus(state.status, state.reason, state.detail);
    try {
      runtime.flush();
    } catch (err) {
      if (!isBonsaiError(err, "SESSION_TAKEN")) throw err;
      const fork = this.#forkOf(runtime);
      fork.setStatus(state.status, state.reason, state.detail);
      fork.flush();
      this.#warn(takeoverMessage(err, fork.session, runtime.session));
      this.#dropIfEmpty(fork);
      return;
    }
    this.#dropIfEmpty(runtime);
  }

  /**
   * A write of the session was refused because another process took it over (its epoch
   * moved on). The work this process had not saved goes on in a fork linked by `parent_id`
   * (nothing is written to the taken session); the host continues in the fork, and the
   * returned error says in one line who took the session, when, and how to open either
   * (also told as a notice when `tell`: no one else will say it).
   */
  #divert(taken: BonsaiError, tell: boolean): BonsaiError {
    this.#takenOver = null;
    const old = this.#runtime;
    const fork = this.#forkOf(old);
    this.#adopt(fork);
    const message = takeoverMessage(taken, fork.session, old.session);
    this.#emit({ type: "session", session: fork.session, reason: "forked" });
    if (tell) this.#warn(message);
    return new BonsaiError("SESSION_TAKEN", message, {
      data: { ...taken.data, fork: fork.id },
      cause: taken,
    });
  }

  #forkOf(runtime: SessionRuntime): SessionRuntime {
    return forkUnsaved(this.#deps.db, this.#deps.ids, runtime, {
      owner: this.#deps.owner,
      title: `${runtime.session.title} (kept after a takeover)`,
    });
  }

  /** A timer's write failed: a takeover moves the work to a fork; anything else is reported. */
  #timerFailed(err: unknown, words: string): void {
    if (!isBonsaiError(err, "SESSION_TAKEN")) return this.#warn(words);
    if (this.#turn) {
      // The turn's own next write is refused too; it is stopped, and prompt() forks.
      this.#takenOver = err;
      this.cancel("user");
    } else if (!this.#closed) {
      this.#divert(err, true);
    }
  }

  #dropIfEmpty(runtime: SessionRuntime): void {
    if (runtime.lastSeq === 0) new SessionStore(this.#deps.db).forget(runtime.id);
  }

  #makeDesk(runtime: SessionRuntime): PeerDesk {
    return new PeerDesk(this.#deps, runtime, {
      emit: (e) => this.#emit(e),
      onLeaseWait: (holder) => {
        this.#activity = "waiting for the write lease";
        this.#notice("info", `waiting for ${holder} to finish writing (write lease)`);
      },
    });
  }

  /**
   * Every half second: when another process committed something and no turn runs, the
   * deliveries addressed to this session are applied (a running turn takes them at its next
   * boundary), and a wake that may start a turn is announced to the front end.
   */
  #pollInbox(): void {
    if (this.#closed || this.#turn || !this.#desk.changed()) return;
    try {
      for (const wake of this.#desk.deliver(true)) {
        this.#emit({ type: "wake", from: wake.fromSession, hops: wake.hops });
      }
    } catch (err) {
      this.#timerFailed(err, `Could not take a peer's message (will retry): ${messageOf(err)}`);
    }
  }

  #emit(event: HostEvent): void {
    this.#track(event);
    if (this.#listeners.size === 0 && event.type === "notice") this.#unheard.push(event);
    for (const listener of this.#listeners) this.#deliver(listener, event);
  }

  /** What this session is doing, from its own events (peers see it with the heartbeat). */
  #track(event: HostEvent): void {
    switch (event.type) {
      case "turn_start":
        this.#activity = "replying";
        break;
      case "tool_start":
        this.#activity = `${event.name} ${event.summary}`.slice(0, 120);
        break;
      case "tool_end":
        this.#activity = "replying";
        break;
      case "permission_request":
        this.#activity = "waiting for permission";
        break;
    }
  }

  #deliver(listener: (event: HostEvent) => void, event: HostEvent): void {
    try {
      listener(event);
    } catch (err) {
      this.#listenerFailure ??= err;
    }
  }

  #notice(level: "info" | "warning", message: string): void {
    this.#emit({ type: "notice", level, message });
  }

  #warn(message: string): void {
    this.#notice("warning", message);
  }
}

/** How many writes the session has made to files (a turn that adds some changed files). */
function writes(runtime: SessionRuntime): number {
  return runtime.changedFiles.reduce((n, f) => n + f.changes, 0);
}

/** One line: who took the session and when, where this process's work went, how to open either. */
function takeoverMessage(taken: BonsaiError, fork: Session, old: Session): string {
  return `${taken.message}; this process's unsaved work is kept in new session '${fork.title}' (bonsai -c ${
    fork.id.slice(0, 10)
  }), and the other can be continued with bonsai -c ${
    old.id.slice(0, 10)
  } once that process is done`;
}

/** How often an idle session looks for messages and wakes from peers (P3: about a second). */
const INBOX_POLL_MS = 500;

function pinnedOf(s: Session): PinnedProvider {
  return { provider: s.provider, model: s.model, reasoning: s.reasoning };
}
