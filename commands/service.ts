import type { Db } from "../core/storage/db.ts";
import type { HostDeps } from "../core/service/session_host.ts";
import { SessionAdmin } from "../core/service/session_admin.ts";
import type { World } from "./world.ts";

/** What the session host needs, from the world and the open database. */
export function hostDeps(world: World, db: Db): HostDeps {
  return {
    db,
    clock: world.clock,
    ids: world.ids,
    env: world.env,
    fetch: world.fetch,
    random: world.random,
    owner: { pid: world.pid, host: world.hostname },
    probe: world.probe,
    platform: Deno.build.os,
  };
}

/** Session admin for a command (one liveness rule for every front end). */
export function sessionAdmin(world: World, db: Db, beforeRead?: () => void): SessionAdmin {
  return new SessionAdmin({
    db,
    clock: world.clock,
    ids: world.ids,
    env: world.env,
    me: { pid: world.pid, host: world.hostname },
    probe: world.probe,
    beforeRead,
  });
}

/** Converts `max-turns` to `maxTurns` (commander's option keys). */
export function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Runs `fn` with SIGINT and SIGTERM handled by `on`; the handlers are removed after. */
export async function withSignals<T>(
  on: (signal: "SIGINT" | "SIGTERM") => void,
  fn: () => Promise<T>,
): Promise<T> {
  const handlers = (["SIGINT", "SIGTERM"] as const).map((sig) => {
    const handler = () => on(sig);
    Deno.addSignalListener(sig, handler);
    return [sig, handler] as const;
  });
  try {
    return await fn();
  } finally {
    for (const [sig, handler] of handlers) Deno.removeSignalListener(sig, handler);
  }
}
