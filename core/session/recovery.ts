import type { Db } from "../storage/db.ts";
import { SessionStore } from "../storage/sessions.ts";
import { LIVE_WINDOW_MS, type ProcessProbe } from "./liveness.ts";

// Boot recovery on its own: every command runs it, so it must not pull in the runtime.

/** L5 at boot: promotes crash leftovers to `interrupted`; returns how many. */
export function recoverCrashed(db: Db, probe?: ProcessProbe): number {
  const dead = (pid: number, host: string) => probe?.(pid, host) === false;
  return new SessionStore(db).recoverInterrupted(db.clock.now(), LIVE_WINDOW_MS, dead)
    .length;
}
