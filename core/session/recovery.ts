import type { Db } from "../storage/db.ts";
import { SessionStore } from "../storage/sessions.ts";
import { ownerAlive, type ProcessProbe } from "./liveness.ts";
import { lostResult } from "./tool_repair.ts";

// Boot recovery on its own: every command runs it, so it must not pull in the runtime.

/**
 * L5 at boot: sessions left `active` by a process that is gone (stale heartbeat, or a dead
 * process on this host) become `interrupted`, and their running tool calls `lost` (R4).
 * Returns how many sessions changed.
 */
export function recoverCrashed(db: Db, probe?: ProcessProbe): number {
  const now = db.clock.now();
  return new SessionStore(db).recoverInterrupted((row) => !ownerAlive(row, now, probe), lostResult)
    .length;
}
