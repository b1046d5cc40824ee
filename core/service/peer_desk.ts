import type { Clock } from "../clock.ts";
import { type PeerPort, Peers } from "../peers/peers.ts";
import { leasedWorkspace, type Workspace } from "../peers/workspace.ts";
import { WriteLease } from "../peers/write_lease.ts";
import type { ProcessProbe } from "../session/liveness.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { Db } from "../storage/db.ts";
import type { MailItem } from "../storage/mailbox.ts";
import { MessageStore } from "../storage/messages.ts";
import type { HostEvent } from "./host_events.ts";

/**
 * Where a delivery is: listed as due, leased, acknowledged and applied (both inside the
 * effect's transaction, not yet committed), committed. A trace hook sees each; the crash
 * tests stop a consumer at each one and kill it.
 */
export type DeliveryPhase = "due" | "leased" | "acknowledged" | "applied" | "committed";

/** How much of a finished turn's answer a wake carries. */
const WAKE_SUMMARY_CHARS = 2_000;

/**
 * One session's desk for its peers (P2, P3), kept by the session host: its hold on the
 * project's write lease, its dealings with peers, and the deliveries addressed to it, each
 * applied once (a note in the transcript and the context, acknowledged in the same
 * transaction) whether the session is idle or at a turn boundary.
 */
export class PeerDesk {
  readonly lease: WriteLease;
  readonly peers: Peers;
  readonly workspace: Workspace;
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #runtime: SessionRuntime;
  readonly #emit: (event: HostEvent) => void;
  readonly #trace: (phase: DeliveryPhase, item: MailItem) => void;
  /** Deliveries applied by this process (a rolled-back effect may still be in memory). */
  readonly #applied = new Set<number>();
  #seenVersion = -1;

  constructor(
    deps: { db: Db; clock: Clock; probe?: ProcessProbe },
    runtime: SessionRuntime,
    hooks: {
      emit: (event: HostEvent) => void;
      onLeaseWait: (holder: string) => void;
      onDelivery?: (phase: DeliveryPhase, item: MailItem) => void;
    },
  ) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#runtime = runtime;
    this.#emit = hooks.emit;
    this.#trace = hooks.onDelivery ?? (() => {});
    const session = runtime.session;
    this.lease = new WriteLease({
      db: deps.db,
      clock: deps.clock,
      projectId: session.projectId,
      sessionId: session.id,
      probe: deps.probe,
      onWait: (h) => hooks.onLeaseWait(`'${h.title}' (process ${h.ownerPid ?? "?"})`),
    });
    this.peers = new Peers({
      db: deps.db,
      clock: deps.clock,
      session: () => runtime.session,
      lease: this.lease,
      probe: deps.probe,
    });
    this.workspace = leasedWorkspace(this.lease);
  }

  /** The peers the agent's tool deals with. */
  get port(): PeerPort {
    return this.peers;
  }

  /** True when another connection committed since the last look (a cheap probe, no query). */
  changed(): boolean {
    const version = this.#db.dataVersion();
    const changed = version !== this.#seenVersion;
    this.#seenVersion = version;
    return changed;
  }

  /**
   * Applies every delivery due to this session: a message or a wake becomes a note in the
   * transcript and a marked user message in the context, acknowledged in the transaction
   * that writes them. Returns the wakes that may start a turn by themselves: when `idle`,
   * the host starts one for each (between turns, the running turn takes them in).
   */
  deliver(idle: boolean): MailItem[] {
    const woken: MailItem[] = [];
    for (const item of this.peers.due()) {
      let applied = false;
      this.#trace("due", item);
      this.peers.take(item, (ack) => {
        this.#trace("leased", item);
        applied = this.#apply(item, ack);
      });
      if (!applied) continue;
      this.#trace("committed", item);
      const wakes = this.peers.mayAutoWake(item);
      this.#emit({
        type: "peer_message",
        kind: item.kind,
        from: item.fromSession,
        fromTitle: item.fromTitle,
        text: item.body,
        startsTurn: idle && wakes,
      });
      if (wakes) woken.push(item);
    }
    return woken;
  }

  /** The session's turn is over: wakes registered on it fire, with its answer. */
  fireWakes(hops: number, status: string, answer: string): void {
    const s = this.#runtime.session;
    const text = answer.length > WAKE_SUMMARY_CHARS
      ? `${answer.slice(0, WAKE_SUMMARY_CHARS)} […]`
      : answer;
    this.peers.fireWakes(
      hops,
      `Session '${s.title}' finished its turn (${status})${text ? `: ${text}` : ""}`,
    );
  }

  /** The effect of one delivery with its acknowledgement, in one transaction; true when applied now. */
  #apply(item: MailItem, ack: () => boolean): boolean {
    const runtime = this.#runtime;
    const from = `'${item.fromTitle}' (${item.fromSession.slice(0, 10)})`;
    const external = `mail:${item.id}`;
    return runtime.write(() => {
      if (!ack()) return false;
      this.#trace("acknowledged", item);
      // Applied before (this process, or one that crashed after saving it): only acknowledge.
      if (
        this.#applied.has(item.id) || new MessageStore(this.#db).hasExternal(runtime.id, external)
      ) {
        return false;
      }
      this.#applied.add(item.id);
      const note = item.kind === "wake"
        ? `Woken: ${item.body}`
        : `Message from peer session ${from}: ${item.body}`;
      const seq = runtime.addMessage({
        role: "system",
        kind: "notice",
        text: note,
        externalId: external,
      });
      const marked = item.kind === "wake"
        ? `[Wake from peer session ${from}, which you asked to wait for] ${item.body}`
        : `[Message from peer session ${from}, another bonsai process in this project — not from the user] ${item.body}`;
      runtime.addContext({ role: "user", content: [{ type: "text", text: marked }] }, seq);
      runtime.flush();
      this.#trace("applied", item);
      return true;
    });
  }
}
