import type { Session } from "../storage/sessions.ts";

/** A session whose owner stamped a heartbeat this recently is live (P1). */
export const LIVE_WINDOW_MS = 15_000;

/** How often the owning process stamps its heartbeat (L3). */
export const HEARTBEAT_INTERVAL_MS = 3_000;

/** True when another process is heartbeating this session right now. */
export function isLive(session: Session, now: number, ownPid?: number): boolean {
  if (session.status !== "active" || session.heartbeatAt === null) return false;
  if (ownPid !== undefined && session.ownerPid === ownPid) return false;
  return now - session.heartbeatAt < LIVE_WINDOW_MS;
}
