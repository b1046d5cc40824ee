import { BonsaiError } from "../../core/errors.ts";
import { renderClaims, renderPeers } from "../render/peers_table.ts";
import type { ReplContext, SlashCommand } from "./command.ts";

const view = (ctx: ReplContext) => ({
  style: ctx.style,
  width: ctx.width,
  ascii: ctx.ascii,
  now: ctx.now,
  timeZone: ctx.timeZone,
});

/** Live peer ids, for Tab completion. */
function peerIds(ctx: ReplContext, partial: string): string[] {
  const words = partial.split(/\s+/);
  if (words.length !== 2 || !["send", "wait"].includes(words[0]!)) {
    return ["send ", "wait "].filter((w) => w.startsWith(partial));
  }
  return ctx.host.peers.list().map((p) => `${words[0]} ${p.sessionId.slice(0, 10)}`)
    .filter((w) => w.startsWith(partial));
}

export const peersCommand: SlashCommand = {
  name: "peers",
  args: "[send <id|all> <text> | wait <id>]",
  summary:
    "live view of the other bonsai sessions in this project; send one a message, or wait for it",
  async run(ctx, args) {
    const [verb, id, ...rest] = args.trim().split(/\s+/).filter(Boolean);
    if (verb === "send") {
      if (!id || rest.length === 0) {
        throw new BonsaiError("USAGE", "Usage: /peers send <id|all> <text>");
      }
      const text = args.trim().slice(args.trim().indexOf(id) + id.length).trim();
      ctx.print(`${ctx.host.peers.send(id, text)}.\n`);
      return;
    }
    if (verb === "wait") {
      if (!id) throw new BonsaiError("USAGE", "Usage: /peers wait <id>");
      ctx.print(`${ctx.host.peers.wait(id)}.\n`);
      return;
    }
    if (verb) throw new BonsaiError("USAGE", "Usage: /peers [send <id|all> <text> | wait <id>]");
    // Live: redrawn every second until a key is pressed (shown once without a terminal).
    for (let frame = 0;; frame++) {
      const table = renderPeers(ctx.host.peers.list(), view(ctx));
      const lines = table.split("\n").length;
      if (frame > 0) ctx.print(`\x1b[${lines + 1}F\x1b[J`);
      ctx.print(table);
      if (!ctx.isTerminal) return;
      ctx.print(ctx.style.dim("(live; press any key to stop)\n"));
      if (await ctx.waitKey(1000)) return;
    }
  },
  complete: peerIds,
};

export const claimsCommand: SlashCommand = {
  name: "claims",
  args: "[take <path> [note] | release [path]]",
  summary: "advisory claims on paths of this project: list, take one, release yours",
  async run(ctx, args) {
    const [verb, path, ...note] = args.trim().split(/\s+/).filter(Boolean);
    const peers = ctx.host.peers;
    if (verb === "take") {
      if (!path) throw new BonsaiError("USAGE", "Usage: /claims take <path> [note]");
      ctx.print(
        `${await peers.claim(path, note.join(" ") || null, null, new AbortController().signal)}.\n`,
      );
      return;
    }
    if (verb === "release") {
      ctx.print(`${peers.release(path ?? null)}.\n`);
      return;
    }
    if (verb) {
      throw new BonsaiError("USAGE", "Usage: /claims [take <path> [note] | release [path]]");
    }
    ctx.print(renderClaims(peers.claims(), view(ctx)));
  },
};
