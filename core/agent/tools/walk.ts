import { join } from "node:path";
import type { Env } from "../../home.ts";
import { loadGitExcludes } from "./git_excludes.ts";
import { type IgnoreRule, isIgnored, parseGitignore } from "./gitignore.ts";

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

/** Options for `walkFiles`. */
export interface WalkOptions {
  /** Where the user's global excludes file is found (HOME, XDG_CONFIG_HOME). */
  readonly env: Env;
  /** Stop after this many files. */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

/**
 * Files under `startRel` (inside `root`, the work tree's top) in name order, each
 * directory's files before its subdirectories. Honours git's ignore files: .gitignore in
 * each directory from the root down, `.git/info/exclude` and the global excludes file.
 * An ignored directory is not entered, so nothing inside it can be re-included (as in
 * git). Symbolic links are neither followed nor listed, so the walk never leaves `root`.
 */
export async function* walkFiles(
  root: string,
  startRel: string,
  options: WalkOptions,
): AsyncGenerator<WalkEntry> {
  const limit = options.limit ?? Infinity;
  const start = startRel === "." ? "" : startRel;
  let rules = await loadGitExcludes(root, options.env);
  // The .gitignore files of the directories above the start apply as well.
  const parts = start === "" ? [] : start.split("/");
  for (let i = 0; i < parts.length; i++) {
    rules = [...rules, ...await loadGitignore(root, parts.slice(0, i).join("/"))];
  }
  let count = 0;
  const stack: { rel: string; rules: readonly IgnoreRule[] }[] = [{ rel: start, rules }];
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const dir = stack.pop()!;
    const extra = await loadGitignore(root, dir.rel);
    const own = extra.length > 0 ? [...dir.rules, ...extra] : dir.rules;
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const e of Deno.readDir(join(root, dir.rel))) entries.push(e);
    } catch (err) {
      if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotFound) {
        continue;
      }
      throw err;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      if (e.name === ".git") continue; // a worktree's `.git` may be a file
      const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
      if (e.isDirectory) {
        if (!ALWAYS_SKIPPED.has(e.name) && !isIgnored(own, rel, true)) subdirs.push(rel);
      } else if (e.isFile && !isIgnored(own, rel, false)) {
        const abs = join(root, rel);
        const info = await Deno.lstat(abs).catch(() => null);
        if (!info?.isFile) continue; // gone or replaced since it was listed
        yield { rel, abs, mtimeMs: info.mtime?.getTime() ?? 0, size: info.size };
        if (++count >= limit) return;
      }
    }
    for (const rel of subdirs.reverse()) stack.push({ rel, rules: own });
  }
}

/** The rules of `<dir>/.gitignore`; like git, a .gitignore that is a symbolic link is not read. */
async function loadGitignore(root: string, dir: string): Promise<IgnoreRule[]> {
  const path = join(root, dir, ".gitignore");
  try {
    if (!(await Deno.lstat(path)).isFile) return [];
    return parseGitignore(await Deno.readTextFile(path), dir);
  } catch (err) {
    if (
      err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory ||
      err instanceof Deno.errors.PermissionDenied
    ) return [];
    throw err;
  }
}
