import type { PermissionAnswer } from "../agent/permissions.ts";
import { BonsaiError, messageOf } from "../errors.ts";
import type { Timers } from "../session/persister.ts";
import { realTimers } from "../session/persister.ts";
import { SessionStore } from "../storage/sessions.ts";
import type { CloseReason } from "./end_state.ts";
import type { HostEvent } from "./host_events.ts";
import { type HostDeps, type HostOptions, SessionHost } from "./session_host.ts";

/** What a pool event carries: a host event, or the pool's own word that a turn failed to run. */
export type PoolEvent = HostEvent | {
  readonly type: "error";
  readonly error: { readonly code: string; readonly message: string };
};

/** How long a session with no running turn and no listener stays open before it is closed. */
export const IDLE_CLOSE_MS = 10 * 60_000;

interface Entry {
  readonly host: SessionHost;
  /** Permission requests not answered yet: replayed to whoever subscribes later. */
  readonly open: Map<number, HostEvent>;
  idleSince: number;
}

/**
 * The sessions one server process runs (X4): each through its own session host, opened on
 * demand in the session's own workspace (X3) and closed when idle, so one process serves
 * several projects at once. Listeners subscribe by session id, before or after a host
 * exists. The pool is a peer like any other process: its hosts heartbeat their sessions,
 * and a session live in another process is refused (SESSION_LIVE) without a write.
 */
export class HostPool {
  readonly #deps: HostDeps;
  readonly #options: Omit<HostOptions, "root">;
  readonly #timers: Timers;
  readonly #entries = new Map<string, Entry>();
  /** Opening in progress, so two requests at once open one host. */
  readonly #opening = new Map<string, Promise<Entry>>();
  readonly #listeners = new Map<string, Set<(event: PoolEvent) => void>>();
  readonly #sweep: number;
  #closed = false;

  constructor(deps: HostDeps, options: Omit<HostOptions, "root">) {
    this.#deps = deps;
    this.#options = options;
    this.#timers = deps.timers ?? realTimers;
    this.#sweep = this.#timers.setInterval(() => void this.#closeIdle(), 60_000);
  }

  /** Whether the session runs in this process now, and whether a turn is running. */
  state(id: string): { hosted: boolean; busy: boolean } {
    const entry = this.#entries.get(id);
    return { hosted: entry !== undefined, busy: entry?.host.busy ?? false };
  }

  /** Permission requests of the session that wait for an answer. */
  pending(id: string): HostEvent[] {
    return [...(this.#entries.get(id)?.open.values() ?? [])];
  }

  /**
   * Receives the session's events (first, the permission requests still open) until the
   * returned function is called.
   */
  subscribe(id: string, listener: (event: PoolEvent) => void): () => void {
    let set = this.#listeners.get(id);
    if (!set) this.#listeners.set(id, set = new Set());
    set.add(listener);
    for (const event of this.pending(id)) listener(event);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(id);
      const entry = this.#entries.get(id);
      if (entry) entry.idleSince = this.#deps.clock.now();
    };
  }

  /**
   * Starts a turn on `text` in the session (opening its host first) and returns once it
   * runs; its events go to the subscribers, ending with `turn_end` (or `error`).
   */
  async prompt(id: string, text: string): Promise<void> {
    const entry = await this.#entry(id);
    const { host } = entry;
    if (host.busy) throw busy(id);
    if (host.configError) throw new BonsaiError("CONFIG", host.configError);
    this.#run(id, entry, host.prompt(text));
  }

  /** Follows a turn that runs in the background: a failure becomes an `error` event. */
  #run(id: string, entry: Entry, turn: Promise<unknown>): void {
    turn.catch((err) => {
      const code = err instanceof BonsaiError ? err.code : "INTERNAL";
      this.#emit(id, { type: "error", error: { code, message: messageOf(err) } });
    }).finally(() => (entry.idleSince = this.#deps.clock.now()));
  }

  /** Records a prompt without running a turn. */
  async addPrompt(id: string, text: string): Promise<number> {
    return (await this.#entry(id)).host.addPrompt(text);
  }

  /** Cancels the session's running turn; false when none runs. */
  cancel(id: string): boolean {
    return this.#entries.get(id)?.host.cancel("user") ?? false;
  }

  /** Answers an open permission request; NOT_FOUND when there is no such request. */
  answer(id: string, requestId: number, answer: PermissionAnswer): void {
    const entry = this.#entries.get(id);
    if (!entry?.open.has(requestId)) {
      throw new BonsaiError(
        "NOT_FOUND",
        `No permission request ${requestId} waits in session '${id}'`,
      );
    }
    entry.open.delete(requestId);
    entry.host.answerPermission(requestId, answer);
  }

  /** The host running the session in this process, or null. */
  host(id: string): SessionHost | null {
    return this.#entries.get(id)?.host ?? null;
  }

  /**
   * Closes the session's host if it runs here (a running turn is cancelled and settled), so
   * the session can be deleted or rewound. Refuses while a turn runs unless `force`.
   */
  async release(id: string, force = false): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return;
    if (entry.host.busy && !force) throw busy(id);
    this.#entries.delete(id);
    await entry.host.close("quit");
  }

  /** Closes every host (SIGINT, SIGTERM): running turns are cancelled and persisted first. */
  async closeAll(reason: CloseReason): Promise<void> {
    this.#closed = true;
    this.#timers.clearInterval(this.#sweep);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    const failures: unknown[] = [];
    for (const result of await Promise.allSettled(entries.map((e) => e.host.close(reason)))) {
      if (result.status === "rejected") failures.push(result.reason);
    }
    if (failures.length) throw failures[0];
  }

  #entry(id: string): Promise<Entry> {
    if (this.#closed) return Promise.reject(new BonsaiError("CANCELLED", "The server is stopping"));
    const entry = this.#entries.get(id);
    if (entry) return Promise.resolve(entry);
    let opening = this.#opening.get(id);
    if (!opening) {
      opening = this.#open(id).finally(() => this.#opening.delete(id));
      this.#opening.set(id, opening);
    }
    return opening;
  }

  async #open(id: string): Promise<Entry> {
    const session = new SessionStore(this.#deps.db).resolve(id);
    const host = await SessionHost.open(
      this.#deps,
      { ...this.#options, root: session.projectPath, providerOptional: true },
      { resume: { prefix: session.id } },
    );
    const entry: Entry = { host, open: new Map(), idleSince: this.#deps.clock.now() };
    host.subscribe((event) => {
      if (event.type === "permission_request") entry.open.set(event.id, event);
      if (event.type === "turn_end") entry.open.clear();
      this.#emit(session.id, event);
      // A peer this session waited for has finished: go on, as the REPL does.
      if (event.type === "wake" && !host.busy) {
        this.#run(session.id, entry, host.continueTurn(event.hops));
      }
    });
    this.#entries.set(session.id, entry);
    return entry;
  }

  #emit(id: string, event: PoolEvent): void {
    for (const listener of this.#listeners.get(id) ?? []) listener(event);
  }

  async #closeIdle(): Promise<void> {
    const now = this.#deps.clock.now();
    for (const [id, entry] of this.#entries) {
      const idle = !entry.host.busy && !this.#listeners.has(id) &&
        now - entry.idleSince > IDLE_CLOSE_MS;
      if (!idle) continue;
      this.#entries.delete(id);
      await entry.host.close("done").catch((err) =>
        this.#emit(id, {
          type: "error",
          error: {
            code: "INTERNAL",
            message: `Closing the idle session failed: ${messageOf(err)}`,
          },
        })
      );
    }
  }
}

function busy(id: string): BonsaiError {
  return new BonsaiError(
    "SESSION_BUSY",
    `A turn is running in session '${id}'; wait for it to end or cancel it`,
  );
}
