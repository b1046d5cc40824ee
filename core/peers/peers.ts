import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import { ownerAlive, type ProcessProbe } from "../session/liveness.ts";
import { type Claim, ClaimStore } from "../storage/claims.ts";
import type { Db } from "../storage/db.ts";
import { FileRecordStore } from "../storage/file_records.ts";
import { LeaseStore } from "../storage/leases.ts";
import { MailboxStore, type MailItem } from "../storage/mailbox.ts";
import { type Session, SessionStore } from "../storage/sessions.ts";
import { WakeStore } from "../storage/wakes.ts";
import type { WriteLease } from "./write_lease.ts";

/** Longest message a session may send (P3). */
export const MAX_MESSAGE_CHARS = 6_000;
/** Messages one session may send per hour (P3). */
export const MAX_MESSAGES_PER_HOUR = 30;
/** Wakes in a chain that may start a turn by themselves; later ones only leave a note. */
export const MAX_WAKE_HOPS = 3;
/** Turns that wakes may start in one session per hour. */
export const MAX_AUTO_WAKES_PER_HOUR = 10;
/** How long a consumer holds a delivery before another try may take it. */
export const DELIVERY_LEASE_MS = 30_000;
/** How long a claim lasts unless its session says otherwise. */
export const DEFAULT_CLAIM_MINUTES = 60;

const HOUR = 3_600_000;

/** A live peer as `bonsai peers`, `/peers` and the peers tool show it. */
export interface PeerInfo {
  readonly sessionId: string;
  readonly title: string;
  readonly pid: number | null;
  readonly host: string | null;
  readonly model: string | null;
  /** What it is doing: idle, replying, a tool, waiting for the write lease or a person. */
  readonly activity: string | null;
  readonly heartbeatAt: number | null;
  readonly claims: readonly Claim[];
  /** It waits for the project's write lease. */
  readonly waitingForLease: boolean;
}

/** What the peers tool (and the REPL's /peers) may do for a session. */
export interface PeerPort {
  /** The session these dealings are for. */
  readonly sessionId: string;
  list(): PeerInfo[];
  send(to: string, text: string): string;
  wait(target: string): string;
  claim(
    pathGlob: string,
    note: string | null,
    minutes: number | null,
    signal: AbortSignal,
  ): Promise<string>;
  release(pathGlob: string | null): string;
  claims(): Claim[];
}

/** Peers where there is no session to deal for (a verification command's context). */
export const noPeers: PeerPort = {
  sessionId: "",
  list: () => [],
  send: () => {
    throw usage("There are no peers to send to here");
  },
  wait: () => {
    throw usage("There are no peers to wait for here");
  },
  claim: () => Promise.reject(usage("There are no peers here")),
  release: () => "No such claim",
  claims: () => [],
};

/** The live peers of a project: its other sessions whose owner is alive (P1). */
export function livePeers(
  db: Db,
  input: { projectPath: string; me: string | null; now: number; probe?: ProcessProbe },
): PeerInfo[] {
  const sessions = new SessionStore(db).list({
    projectPath: input.projectPath,
    source: "bonsai",
    active: true,
  })
    .filter((s) => s.id !== input.me && ownerAlive(s, input.now, input.probe));
  if (sessions.length === 0) return [];
  const projectId = sessions[0]!.projectId;
  const claims = new ClaimStore(db).list(projectId, input.now);
  const waiting = new Set(
    new LeaseStore(db).waiting(projectId, input.now - 15_000).map((w) => w.sessionId),
  );
  return sessions.map((s) => ({
    sessionId: s.id,
    title: s.title,
    pid: s.ownerPid,
    host: s.ownerHost,
    model: s.model,
    activity: s.activity,
    heartbeatAt: s.heartbeatAt,
    claims: claims.filter((c) => c.sessionId === s.id),
    waitingForLease: waiting.has(s.id),
  }));
}

/**
 * One session's dealings with its peers (P3): messages (bounded, redacted, rate-limited),
 * one-shot wakes (no mutual or cyclic waits), advisory claims (taken under the write
 * lease, with expiry), and the durable deliveries addressed to it.
 */
export class Peers implements PeerPort {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #session: () => Session;
  readonly #probe: ProcessProbe | undefined;
  readonly #lease: WriteLease;
  readonly #mail: MailboxStore;
  readonly #wakes: WakeStore;

  constructor(
    deps: { db: Db; clock: Clock; session: () => Session; lease: WriteLease; probe?: ProcessProbe },
  ) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#session = deps.session;
    this.#probe = deps.probe;
    this.#lease = deps.lease;
    this.#mail = new MailboxStore(deps.db);
    this.#wakes = new WakeStore(deps.db);
  }

  get sessionId(): string {
    return this.#session().id;
  }

  /** The live peers of this session's project. */
  list(): PeerInfo[] {
    const me = this.#session();
    return livePeers(this.#db, {
      projectPath: me.projectPath,
      me: me.id,
      now: this.#clock.now(),
      probe: this.#probe,
    });
  }

  /** Sends `text` to one live peer (an id prefix) or to every one (`all`); returns what was done. */
  send(to: string, text: string): string {
    const me = this.#session();
    const body = text.trim();
    if (body === "") throw usage("A message cannot be empty");
    if (body.length > MAX_MESSAGE_CHARS) {
      throw usage(
        `A message is at most ${MAX_MESSAGE_CHARS} characters (this one has ${body.length}); shorten it or point at a file`,
      );
    }
    const now = this.#clock.now();
    const sent = this.#mail.sentSince(me.id, "message", now - HOUR);
    if (sent >= MAX_MESSAGES_PER_HOUR) {
      throw usage(
        `This session sent ${sent} messages in the last hour, the most it may (${MAX_MESSAGES_PER_HOUR}); wait before sending more`,
      );
    }
    const peers = this.list();
    const recipients = to === "all" ? peers : [this.#peer(peers, to)];
    if (recipients.length === 0) throw usage("No live peer to send to in this project");
    this.#mail.post(
      {
        projectId: me.projectId,
        fromSession: me.id,
        toSession: to === "all" ? null : recipients[0]!.sessionId,
        kind: "message",
        body,
        hops: 0,
        createdAt: now,
      },
      recipients.map((p) => p.sessionId),
    );
    return `Sent to ${
      recipients.map((p) => `'${p.title}' (${p.sessionId.slice(0, 10)})`).join(", ")
    }`;
  }

  /** Registers a one-shot wake when `target` (an id prefix of a live peer) finishes its turn. */
  wait(target: string): string {
    const me = this.#session();
    const peer = this.#peer(this.list(), target);
    if (this.#wakes.waitsOn(peer.sessionId).has(me.id)) {
      throw usage(
        `'${peer.title}' already waits (directly or through others) for this session; waiting for it too would leave both waiting for ever`,
      );
    }
    this.#wakes.register(me.id, peer.sessionId, 0, this.#clock.now());
    return `This session will be woken once when '${peer.title}' (${
      peer.sessionId.slice(0, 10)
    }) finishes its turn`;
  }

  /** Takes (or renews) an advisory claim on a path glob, under the project's write lease. */
  async claim(
    pathGlob: string,
    note: string | null,
    minutes: number | null,
    signal: AbortSignal,
  ): Promise<string> {
    const me = this.#session();
    const glob = pathGlob.trim().replace(/^\.\//, "");
    if (glob === "") throw usage("A claim needs a path or glob");
    const now = this.#clock.now();
    const expiresAt = now + (minutes ?? DEFAULT_CLAIM_MINUTES) * 60_000;
    const token = await this.#lease.acquire(signal);
    try {
      this.#lease.commit(
        token,
        () =>
          new ClaimStore(this.#db).take(me.projectId, me.id, {
            pathGlob: glob,
            note,
            now,
            expiresAt,
          }),
      );
    } finally {
      this.#lease.release(token);
    }
    return `Claimed ${glob} until ${
      new Date(expiresAt).toISOString()
    } (advisory: peers are told, not stopped)`;
  }

  /** Releases this session's claim on a glob, or every claim it holds (null). */
  release(pathGlob: string | null): string {
    const n = new ClaimStore(this.#db).release(this.#session().id, pathGlob?.trim() ?? null);
    return n === 0 ? "No such claim" : `Released ${n} claim${n === 1 ? "" : "s"}`;
  }

  /** The project's unexpired claims of live sessions (this one's included). */
  claims(): Claim[] {
    const me = this.#session();
    const live = new Set([me.id, ...this.list().map((p) => p.sessionId)]);
    return new ClaimStore(this.#db).list(me.projectId, this.#clock.now())
      .filter((c) => live.has(c.sessionId));
  }

  /** Files live peers changed (self-review leaves them out, P4). */
  peerChangedPaths(): Set<string> {
    const files = new FileRecordStore(this.#db);
    return new Set(this.list().flatMap((p) => files.changed(p.sessionId).map((f) => f.path)));
  }

  /** How many live peers wait on this session: for its write lease, or to be woken when it is done. */
  waiting(): number {
    const me = this.#session();
    const since = this.#clock.now() - 15_000;
    const forLease = new LeaseStore(this.#db).waiting(me.projectId, since)
      .filter((w) => w.sessionId !== me.id).length;
    return forLease + this.#wakes.waiters(me.id);
  }

  /** Deliveries addressed to this session that no one holds now. */
  due(): MailItem[] {
    return this.#mail.due(this.#session().id, this.#clock.now());
  }

  /**
   * Takes one delivery: leases it (a crash lets the lease run out and it comes again), then
   * runs `apply` — the effect, which must acknowledge in its own transaction with `ack` —
   * and reports whether it was applied.
   */
  take(item: MailItem, apply: (ack: () => boolean) => void): boolean {
    const me = this.#session().id;
    const now = this.#clock.now();
    const leased = this.#db.write(() =>
      this.#mail.lease(item.id, me, now, now + DELIVERY_LEASE_MS)
    );
    if (!leased) return false;
    apply(() => this.#mail.ack(item.id, me, this.#clock.now()));
    return true;
  }

  /**
   * Fires the wakes registered on this session (its turn is over): each waiter gets one
   * delivery, carrying how many automatic wakes led here. Returns how many.
   */
  fireWakes(hops: number, summary: string): number {
    const me = this.#session();
    const now = this.#clock.now();
    let fired = 0;
    for (const wake of this.#wakes.on(me.id)) {
      this.#db.write(() => {
        if (!this.#wakes.fire(wake.id, now)) return;
        this.#mail.post(
          {
            projectId: me.projectId,
            fromSession: me.id,
            toSession: wake.waiter,
            kind: "wake",
            body: summary,
            hops: hops + 1,
            createdAt: now,
          },
          [wake.waiter],
        );
        fired++;
      });
    }
    return fired;
  }

  /**
   * Whether a wake may start a turn by itself: not too far down a chain of wakes (two
   * agents cannot ping-pong for ever), and not too many in the last hour.
   */
  mayAutoWake(item: MailItem): boolean {
    const since = this.#clock.now() - HOUR;
    return item.kind === "wake" && item.hops <= MAX_WAKE_HOPS &&
      this.#mail.receivedSince(this.#session().id, "wake", since) <= MAX_AUTO_WAKES_PER_HOUR;
  }

  #peer(peers: readonly PeerInfo[], prefix: string): PeerInfo {
    const wanted = prefix.trim().toLowerCase();
    const hits = peers.filter((p) => p.sessionId.startsWith(wanted));
    if (hits.length === 1) return hits[0]!;
    if (hits.length === 0) {
      throw new BonsaiError(
        "NOT_FOUND",
        `No live peer session starts with '${prefix}'${
          peers.length
            ? `; live peers: ${peers.map((p) => p.sessionId.slice(0, 10)).join(", ")}`
            : ""
        }`,
      );
    }
    throw new BonsaiError("AMBIGUOUS_ID", `Peer id prefix '${prefix}' is ambiguous`);
  }
}

function usage(message: string): BonsaiError {
  return new BonsaiError("USAGE", message);
}
