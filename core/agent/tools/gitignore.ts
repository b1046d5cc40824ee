// gitignore(5) patterns: comments, trailing-space trimming, `!` negation, `dir/` rules,
// anchoring, and wildmatch globs (see glob_match.ts), relative to the file's directory.

import { escapeLiteral, wildcardSource } from "./glob_match.ts";

/** One rule of a gitignore file. */
export interface IgnoreRule {
  /** Matches paths relative to the walk root; null when the pattern can match nothing. */
  readonly regex: RegExp | null;
  readonly negate: boolean;
  /** The pattern ended with `/`: it matches directories only. */
  readonly dirOnly: boolean;
}

/**
 * Parses gitignore text from the directory `base` (relative to the root, "" for the root;
 * also "" for info/exclude and the global excludes file).
 */
export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  const prefix = base === "" ? "" : `${escapeLiteral(base)}/`;
  for (let line of text.replace(/^\uFEFF/, "").split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.startsWith("#")) continue;
    line = trimTrailingSpaces(line);
    const negate = line.startsWith("!");
    if (negate) line = line.slice(1);
    const dirOnly = line.endsWith("/");
    if (dirOnly) line = line.slice(0, -1);
    if (line === "") continue;
    // A slash at the start or in the middle anchors the pattern to the file's directory;
    // without one it matches a name at any depth below it.
    const anchored = line.includes("/");
    const source = wildcardSource(anchored ? line.replace(/^\//, "") : line, { lenient: false });
    const regex = source === null
      ? null
      : new RegExp(`^${prefix}${anchored ? "" : "(?:.*/)?"}${source}$`, "u");
    rules.push({ regex, negate, dirOnly });
  }
  return rules;
}

/**
 * Whether the rules ignore `rel` itself: the last matching rule decides, so later rules
 * (deeper .gitignore files) override earlier ones. Whether a parent directory is ignored
 * is the caller's business: git never looks inside an ignored directory, so nothing in it
 * can be re-included, and the walk does not descend into one.
 */
export function isIgnored(rules: readonly IgnoreRule[], rel: string, isDir: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.dirOnly && !isDir) continue;
    if (rule.regex?.test(rel)) return !rule.negate;
  }
  return false;
}

/** Drops trailing spaces (not tabs) unless escaped with a backslash, as git does. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") {
    let backslashes = 0;
    while (end - 2 - backslashes >= 0 && line[end - 2 - backslashes] === "\\") backslashes++;
    if (backslashes % 2 === 1) break; // `\ ` keeps this space and those before it
    end--;
  }
  return line.slice(0, end);
}
