import { globToRegExp } from "./glob_match.ts";
import type { ToolContext } from "./tool.ts";

/**
 * What write and edit say when a live peer claims the path they changed (P3: claims are
 * advisory, so the change stands, but the model and the person are told who works there).
 * Empty when no one does.
 */
export function claimNote(ctx: ToolContext, rel: string): { note: string; who: string } | null {
  const held = ctx.peers.claims().filter((c) =>
    c.sessionId !== ctx.peers.sessionId && claimCovers(c.pathGlob, rel)
  );
  if (held.length === 0) return null;
  const who = held.map((c) => `'${c.title}' (${c.sessionId.slice(0, 10)})`).join(", ");
  const notes = held.flatMap((c) => (c.note ? [c.note] : [])).join("; ");
  return {
    who,
    note: `\nNote: ${rel} is claimed by ${who}${
      notes ? ` (${notes})` : ""
    }. Claims are advisory: the change was made; coordinate with them through the peers tool before changing more there.`,
  };
}

/** Whether a claim's path or glob covers `rel`: the path itself, a folder above it, or a glob match. */
export function claimCovers(pathGlob: string, rel: string): boolean {
  const glob = pathGlob.replace(/\/+$/, "");
  if (!/[*?[{]/.test(glob)) return rel === glob || rel.startsWith(`${glob}/`) || glob === ".";
  return globToRegExp(glob).test(rel);
}
