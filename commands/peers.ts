import { z } from "zod";
import { BonsaiError } from "../core/errors.ts";
import { livePeers } from "../core/peers/peers.ts";
import { findProjectRoot } from "../core/project_root.ts";
import { renderPeers } from "../tui/render/peers_table.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const PeersOptions = z.object({
  project: z.string().min(1).optional(),
  json: z.boolean().optional(),
});

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** `bonsai peers [--project PATH] [--json]`: the live bonsai sessions of a project (P1, P4). */
export async function listPeers(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(PeersOptions, raw);
  const ui = uiFor(world);
  if (opts.project !== undefined && !isDirectory(opts.project)) {
    throw new BonsaiError("USAGE", `--project: '${opts.project}' is not a directory`);
  }
  using db = await openDb(world);
  const now = world.clock.now();
  const peers = livePeers(db, {
    projectPath: findProjectRoot(opts.project ?? world.cwd),
    me: null,
    now,
    probe: world.probe,
  });
  if (opts.json) {
    ui.json(peers.map((p) => ({
      session_id: p.sessionId,
      title: p.title,
      pid: p.pid,
      host: p.host,
      model: p.model,
      activity: p.activity,
      waiting_for_lease: p.waitingForLease,
      heartbeat_at: iso(p.heartbeatAt),
      claims: p.claims.map((c) => ({
        path: c.pathGlob,
        note: c.note,
        expires_at: iso(c.expiresAt),
      })),
    })));
    return EXIT.OK;
  }
  ui.out(renderPeers(peers, {
    style: ui.style,
    width: ui.width,
    ascii: ui.ascii,
    now,
    timeZone: ui.timeZone,
  }));
  return EXIT.OK;
}
