// The ignore files git reads besides the per-directory .gitignore: the repository's
// `info/exclude` and the user's global excludes file (`core.excludesFile`, by default
// `$XDG_CONFIG_HOME/git/ignore` or `~/.config/git/ignore`).

import { isAbsolute, join, resolve } from "node:path";
import type { Env } from "../../home.ts";
import { type IgnoreRule, parseGitignore } from "./gitignore.ts";

/**
 * Rules from the global excludes file, then from info/exclude, so that with the
 * last-match-wins of `isIgnored` (and .gitignore rules appended after these) the
 * precedence is git's: .gitignore over info/exclude over the global file. Both are
 * relative to `root`, the work tree's top. The global file applies even outside a
 * repository, as the .gitignore files do.
 */
export async function loadGitExcludes(root: string, env: Env): Promise<IgnoreRule[]> {
  const globalPath = await globalExcludesPath(root, env);
  const infoPath = await infoExcludePath(root);
  const globalText = globalPath ? await readIfExists(globalPath) : null;
  const infoText = infoPath ? await readIfExists(infoPath) : null;
  return [...parseGitignore(globalText ?? "", ""), ...parseGitignore(infoText ?? "", "")];
}

/** The user's global excludes file as git finds it, or null when there is none. */
export async function globalExcludesPath(root: string, env: Env): Promise<string | null> {
  const home = env.HOME || null;
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : null);
  // Later files win, as in git: the XDG config, ~/.gitconfig, then the repository's own.
  const configs = [
    xdg ? join(xdg, "git", "config") : null,
    home ? join(home, ".gitconfig") : null,
    join(root, ".git", "config"),
  ];
  let configured: string | null = null;
  for (const path of configs) {
    const text = path ? await readIfExists(path) : null;
    const value = text === null ? null : excludesFileSetting(text);
    if (value !== null) configured = value;
  }
  if (configured === null) return xdg ? join(xdg, "git", "ignore") : null;
  if (configured === "") return null;
  if (configured === "~" || configured.startsWith("~/")) {
    return home ? join(home, configured.slice(1)) : null;
  }
  if (configured.startsWith("~")) return null; // ~user: not resolved
  return isAbsolute(configured) ? configured : resolve(root, configured);
}

/**
 * The value of `core.excludesFile` in git config text (the last one wins), or null when it
 * is not set. Handles sections, quotes, escapes and comments; not includes or
 * continuation lines.
 */
export function excludesFileSetting(text: string): string | null {
  let section = "";
  let value: string | null = null;
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)\s*("(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header) {
      section = header[2] === undefined ? header[1]!.toLowerCase() : "";
      line = line.slice(header[0].length).trim();
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=(.*)$/.exec(line);
    if (section === "core" && entry && entry[1]!.toLowerCase() === "excludesfile") {
      value = configValue(entry[2]!);
    }
  }
  return value;
}

/** A git config value: quotes removed, escapes resolved, a trailing comment dropped. */
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  let pendingSpace = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (!quoted && (c === "#" || c === ";")) break;
    if (!quoted && (c === " " || c === "\t")) {
      if (out !== "") pendingSpace += c; // inner spaces kept, outer ones dropped
      continue;
    }
    out += pendingSpace;
    pendingSpace = "";
    if (c === '"') quoted = !quoted;
    else if (c === "\\") {
      const next = raw[++i];
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "" : next ?? "";
    } else out += c;
  }
  return out;
}

/** `$GIT_DIR/info/exclude` for the work tree at `root` (a `.git` directory or file), or null. */
export async function infoExcludePath(root: string): Promise<string | null> {
  const dotGit = join(root, ".git");
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dotGit);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
      return null;
    }
    throw err;
  }
  if (info.isDirectory) return join(dotGit, "info", "exclude");
  // A linked worktree or submodule: `gitdir: <path>`, whose `commondir` holds info/.
  const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(await readIfExists(dotGit) ?? "")?.[1];
  if (!gitdir) return null;
  const dir = resolve(root, gitdir);
  const common = (await readIfExists(join(dir, "commondir")))?.trim();
  return join(common ? resolve(dir, common) : dir, "info", "exclude");
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (
      err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory ||
      err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotADirectory
    ) return null;
    throw err;
  }
}
