import type { Session } from "../storage/sessions.ts";

/** A session whose owner stamped a heartbeat this recently is live (P1). */
export const LIVE_WINDOW_MS = 15_000;

/** How often the owning process stamps its heartbeat (L3). */
export const HEARTBEAT_INTERVAL_MS = 3_000;

/**
 * Whether a process on this host is still running; null when it cannot be told (another
 * host, or an OS without /proc). Injected: core does not probe the system itself.
 */
export type ProcessProbe = (pid: number, host: string) => boolean | null;

/** True when another process is heartbeating this session right now. */
export function isLive(
  session: Session,
  now: number,
  ownPid?: number,
  probe?: ProcessProbe,
): boolean {
  if (session.status !== "active" || session.heartbeatAt === null) return false;
  if (ownPid !== undefined && session.ownerPid === ownPid) return false;
  // A dead owner on this host is not live, however fresh its last heartbeat.
  if (
    probe && session.ownerPid !== null && probe(session.ownerPid, session.ownerHost ?? "") === false
  ) return false;
  return now - session.heartbeatAt < LIVE_WINDOW_MS;
}
