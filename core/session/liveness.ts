// The one liveness rule (P1, L5, R3). Resume, forget, boot recovery and `db restore` all
// ask it; no front end decides on its own whether a session is live.

/** A session whose owner stamped a heartbeat this recently is live (P1). */
export const LIVE_WINDOW_MS = 15_000;

/** How often the owning process stamps its heartbeat (L3). */
export const HEARTBEAT_INTERVAL_MS = 3_000;

/**
 * Whether a process on this host is still running; null when it cannot be told (another
 * host, or an OS without /proc). Injected: core does not probe the system itself.
 */
export type ProcessProbe = (pid: number, host: string) => boolean | null;

/** What liveness is judged on. */
export interface LivenessFacts {
  readonly status: string;
  readonly heartbeatAt: number | null;
  readonly createdAt: number;
  readonly ownerPid: number | null;
  readonly ownerHost: string | null;
}

/** A process that may own sessions. */
export interface ProcessId {
  readonly pid: number;
  readonly host: string;
}

/**
 * True when the session's owner is alive: the row is `active`, its last heartbeat (or, for
 * a row an owner has just created, its creation) is under 15 s old, and the owner's process
 * is not known to be gone. A fresh heartbeat from a dead process on this host does not
 * count; a row no process ever owned is not live.
 */
export function ownerAlive(s: LivenessFacts, now: number, probe?: ProcessProbe): boolean {
  if (s.status !== "active") return false;
  const beat = s.heartbeatAt ?? (s.ownerPid !== null ? s.createdAt : null);
  if (beat === null || now - beat >= LIVE_WINDOW_MS) return false;
  return !(probe && s.ownerPid !== null && probe(s.ownerPid, s.ownerHost ?? "") === false);
}

/** True when `me` is the session's recorded owner. */
export function ownedBy(s: LivenessFacts, me: ProcessId): boolean {
  return s.ownerPid === me.pid && (s.ownerHost === null || s.ownerHost === me.host);
}

/** True when another live process owns the session: it may not be resumed, forgotten or restored over. */
export function liveElsewhere(
  s: LivenessFacts,
  now: number,
  me: ProcessId,
  probe?: ProcessProbe,
): boolean {
  return ownerAlive(s, now, probe) && !ownedBy(s, me);
}
