import type { Db } from "../core/storage/db.ts";
import { SessionService } from "../core/service/session_service.ts";
import type { World } from "./world.ts";

/** The session service for the commands that run the agent (headless and the REPL). */
export function sessionServiceFor(world: World, db: Db): SessionService {
  return new SessionService({
    db,
    clock: world.clock,
    ids: world.ids,
    env: world.env,
    fetch: world.fetch,
    random: world.random,
    owner: { pid: world.pid, host: world.hostname },
    platform: Deno.build.os,
  });
}
