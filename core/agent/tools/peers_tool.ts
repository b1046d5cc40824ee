import { z } from "zod";
import { BonsaiError } from "../../errors.ts";
import type { PeerInfo } from "../../peers/peers.ts";
import { defineTool, toolError } from "./tool.ts";

/** `peers`: the other bonsai sessions working in this project (P3). */
export const peersTool = defineTool({
  name: "peers",
  description:
    "Other bonsai sessions in this project. list; send to an id or 'all'; wait: woken when that session's turn ends (end yours); claim/release: advisory path glob; claims.",
  schema: z.object({
    action: z.enum(["list", "send", "wait", "claim", "release", "claims"]),
    to: z.string().min(1).optional(),
    text: z.string().optional(),
    session: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    note: z.string().max(500).optional(),
    minutes: z.number().int().min(1).max(1440).optional().describe("claim length, default 60"),
  }).strict(),
  permission: "none",
  describe: (a) => [a.action, a.to ?? a.session ?? a.path ?? ""].join(" ").trim(),
  async run(args, ctx) {
    const peers = ctx.peers;
    try {
      switch (args.action) {
        case "list": {
          const list = peers.list();
          return {
            output: list.length
              ? list.map(describePeer).join("\n")
              : "No other live session in this project",
            isError: false,
            summary: `${list.length} peers`,
          };
        }
        case "send":
          if (!args.to || args.text === undefined) return toolError("send needs 'to' and 'text'");
          return { output: peers.send(args.to, args.text), isError: false, summary: "sent" };
        case "wait":
          if (!args.session) return toolError("wait needs 'session'");
          return { output: peers.wait(args.session), isError: false, summary: "waiting" };
        case "claim":
          if (!args.path) return toolError("claim needs 'path'");
          return {
            output: await peers.claim(
              args.path,
              args.note ?? null,
              args.minutes ?? null,
              ctx.signal,
            ),
            isError: false,
            summary: "claimed",
          };
        case "release":
          return { output: peers.release(args.path ?? null), isError: false, summary: "released" };
        case "claims": {
          const claims = peers.claims();
          return {
            output: claims.length
              ? claims.map((c) =>
                `${c.pathGlob} — '${c.title}' (${c.sessionId.slice(0, 10)})${
                  c.note ? `: ${c.note}` : ""
                }`
              ).join("\n")
              : "No claims in this project",
            isError: false,
            summary: `${claims.length} claims`,
          };
        }
      }
    } catch (err) {
      if (err instanceof BonsaiError) return toolError(err.message);
      throw err;
    }
  },
});

function describePeer(p: PeerInfo): string {
  const claims = p.claims.map((c) => c.pathGlob).join(", ");
  return `${p.sessionId.slice(0, 10)} '${p.title}' — pid ${p.pid ?? "?"}, ${
    p.model ?? "no model"
  }, ${p.waitingForLease ? "waiting for the write lease" : p.activity ?? "idle"}${
    claims ? `; claims ${claims}` : ""
  }`;
}
