import type { ConfinedPath } from "./paths.ts";
import { sha256, type ToolContext } from "./tool.ts";

/** The current bytes of a file and their hash, or null when it does not exist. */
export async function currentFile(
  path: ConfinedPath,
): Promise<{ text: string; hash: string } | null> {
  try {
    const bytes = await Deno.readFile(path.abs);
    return { text: new TextDecoder().decode(bytes), hash: await sha256(bytes) };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    if (err instanceof Deno.errors.IsADirectory) throw new Error(`${path.rel} is a directory`);
    throw err;
  }
}

/**
 * Why the session may not overwrite this existing file, or null when it may: it must have
 * read the file, and the file must not have changed since (another process, the user).
 */
export function staleReason(
  ctx: ToolContext,
  path: ConfinedPath,
  currentHash: string,
): string | null {
  const known = ctx.files.knownHash(path.rel);
  if (known === null) return `Read ${path.rel} before changing it`;
  if (known !== currentHash) {
    return `${path.rel} changed since you last read it (by the user or another process); read it again first`;
  }
  return null;
}
