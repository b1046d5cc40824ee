import { join } from "node:path";
import { isIgnored, parseGitignore } from "./glob_match.ts";

/** Folders never searched: version control data and dependency trees. */
const ALWAYS_SKIPPED = new Set([".git", ".hg", ".svn", "node_modules"]);

/** A file found by the walk. */
export interface WalkEntry {
  /** Relative to the root, with `/`. */
  readonly rel: string;
  readonly abs: string;
  readonly mtimeMs: number;
  readonly size: number;
}

/**
 * Files under `start` (inside `root`), honouring .gitignore files on the way down.
 * Stops after `limit` files. Symbolic links are not followed.
 */
export async function* walkFiles(
  root: string,
  startRel: string,
  options: { limit?: number; signal?: AbortSignal } = {},
): AsyncGenerator<WalkEntry> {
  const limit = options.limit ?? Infinity;
  let count = 0;
  const rules = await loadIgnores(root, "");
  const stack: { rel: string; rules: ReturnType<typeof parseGitignore> }[] = [{
    rel: startRel === "." ? "" : startRel,
    rules,
  }];
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const dir = stack.pop()!;
    const abs = join(root, dir.rel);
    const own = dir.rel ? [...dir.rules, ...(await loadIgnores(root, dir.rel))] : dir.rules;
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const e of Deno.readDir(abs)) entries.push(e);
    } catch (err) {
      if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotFound) {
        continue;
      }
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1)); // popped in name order
    const subdirs: string[] = [];
    for (const e of entries.reverse()) {
      const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
      if (e.isDirectory) {
        if (!ALWAYS_SKIPPED.has(e.name) && !isIgnored(own, rel, true)) subdirs.push(rel);
      } else if (e.isFile && !isIgnored(own, rel, false)) {
        const info = await Deno.stat(join(root, rel)).catch(() => null);
        if (!info) continue;
        yield { rel, abs: join(root, rel), mtimeMs: info.mtime?.getTime() ?? 0, size: info.size };
        if (++count >= limit) return;
      }
    }
    for (const rel of subdirs.reverse()) stack.push({ rel, rules: own });
  }
}

async function loadIgnores(root: string, rel: string) {
  try {
    return parseGitignore(await Deno.readTextFile(join(root, rel, ".gitignore")), rel);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) return [];
    throw err;
  }
}
