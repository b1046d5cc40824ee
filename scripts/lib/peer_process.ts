// What the peer benchmarks' and tests' helper processes share: the database of a home, a
// session of their own in a project, its write lease and peers, the liveness probe bonsai
// uses, and waiting for a signal file.
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom, ulidSource } from "../../core/ids.ts";
import { Peers } from "../../core/peers/peers.ts";
import { WriteLease } from "../../core/peers/write_lease.ts";
import { createRedactor } from "../../core/secrets.ts";
import { startSession } from "../../core/session/lifecycle.ts";
import type { ProcessProbe } from "../../core/session/liveness.ts";
import type { SessionRuntime } from "../../core/session/runtime.ts";
import { type Db, openDatabase } from "../../core/storage/db.ts";

/** The liveness probe bonsai itself uses on Linux: a process is alive while /proc has it. */
export const procProbe: ProcessProbe = (pid, host) => {
  if (host !== Deno.hostname() || Deno.build.os !== "linux") return null;
  return exists(`/proc/${pid}`);
};

/** This process, as a session owner. */
export const self = () => ({ pid: Deno.pid, host: Deno.hostname() });

/** The database of the bonsai home at `home` (created if new). */
export function openHome(home: string): Promise<Db> {
  return openDatabase({ home: homeAt(home), clock: systemClock, redactor: createRedactor() });
}

/** A new session of `project`, owned by this process. */
export function ownSession(db: Db, project: string): SessionRuntime {
  return startSession(db, ulidSource(systemClock, cryptoRandom), {
    projectPath: project,
    owner: self(),
  });
}

/** The project's write lease, held for `runtime`'s session. */
export function leaseOf(
  db: Db,
  runtime: SessionRuntime,
  options: { ttlMs?: number; probe?: ProcessProbe } = {},
): WriteLease {
  return new WriteLease({
    db,
    clock: systemClock,
    projectId: runtime.session.projectId,
    sessionId: runtime.id,
    ...options,
  });
}

/** The peers of `runtime`'s session (messages, wakes, claims). */
export function peersOf(db: Db, runtime: SessionRuntime): Peers {
  const session = runtime.session;
  return new Peers({
    db,
    clock: systemClock,
    session: () => session,
    lease: leaseOf(db, runtime, { probe: procProbe }),
    probe: procProbe,
  });
}

/** Whether a file exists. */
export function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `path` exists (the parent process's "go"), looking every `pollMs`. */
export async function waitForFile(path: string, pollMs = 2): Promise<void> {
  while (!exists(path)) await new Promise((r) => setTimeout(r, pollMs));
}
