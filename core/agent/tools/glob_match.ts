// Wildcard patterns as regular expressions, with the rules of git's wildmatch in pathname
// mode (the same rules .gitignore uses): `*`, `?` and `[...]` never match `/`; `**` as a
// whole path segment matches any number of directories; a backslash makes the next
// character literal. The glob tool adds `{a,b}` alternatives on top (see `globToRegExp`).

import { BonsaiError } from "../../errors.ts";

/** Most alternatives one glob may expand to through `{a,b}`. */
const MAX_ALTERNATIVES = 1000;

/** What to do with a `[` that has no closing `]` (or a trailing lone backslash). */
export interface WildcardOptions {
  /** True: match it literally (the glob tool). False: the pattern matches nothing (git). */
  readonly lenient: boolean;
}

/**
 * Regex source (for the `u` flag) matching whole paths against one wildcard pattern, or
 * null when the pattern can match nothing (malformed in git's eyes).
 */
export function wildcardSource(pattern: string, options: WildcardOptions): string | null {
  const chars = Array.from(pattern);
  let out = "";
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    if (c === "*") {
      let j = i;
      while (chars[j] === "*") j++;
      const segmentStart = i === 0 || chars[i - 1] === "/";
      const slashAfter = chars[j] === "/" ? 1 : chars[j] === "\\" && chars[j + 1] === "/" ? 2 : 0;
      if (j - i >= 2 && segmentStart && j === chars.length) {
        out += ".*";
      } else if (j - i >= 2 && segmentStart && slashAfter > 0) {
        out += "(?:.*/)?"; // zero or more whole directories
        j += slashAfter;
      } else {
        out += "[^/]*"; // other runs of stars are one star
      }
      i = j;
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const cls = characterClass(chars, i);
      if (cls === "malformed") return null;
      if (cls === null) {
        if (!options.lenient) return null;
        out += "\\[";
        i++;
      } else {
        out += cls.source;
        i = cls.end;
      }
    } else if (c === "\\") {
      const next = chars[i + 1];
      if (next === undefined) {
        if (!options.lenient) return null;
        out += "\\\\";
      } else {
        out += escapeLiteral(next);
      }
      i += 2;
    } else {
      out += escapeLiteral(c);
      i++;
    }
  }
  return out;
}

/** `text` escaped to match itself in a `u`-flag regular expression. */
export function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** Options for `globToRegExp`. */
export interface GlobOptions {
  /** An alternative without `/` matches the file name at any depth (like `**\/name`). */
  readonly matchBase?: boolean;
}

/**
 * A regex matching whole relative paths (with `/`) against a glob of the glob tool: the
 * wildcards above plus `{a,b}` alternatives (nested, any number).
 */
export function globToRegExp(glob: string, options: GlobOptions = {}): RegExp {
  const sources: string[] = [];
  for (const alternative of expandBraces(glob)) {
    const base = options.matchBase && !alternative.includes("/");
    const source = wildcardSource(base ? `**/${alternative}` : alternative, { lenient: true });
    if (source !== null) sources.push(source);
  }
  return new RegExp(`^(?:${sources.join("|")})$`, "u");
}

/** The patterns a glob stands for once `{a,b}` groups are expanded, in order. */
export function expandBraces(glob: string): string[] {
  const out: string[] = [];
  const pending = [glob];
  while (pending.length > 0) {
    const pattern = pending.shift()!;
    const group = firstBraceGroup(pattern);
    if (!group) {
      out.push(pattern);
      continue;
    }
    const prefix = pattern.slice(0, group.open);
    const suffix = pattern.slice(group.close + 1);
    const expanded = group.alternatives.map((alt) => prefix + alt + suffix);
    if (out.length + pending.length + expanded.length > MAX_ALTERNATIVES) {
      throw new BonsaiError(
        "USAGE",
        `Glob '${glob}' expands to more than ${MAX_ALTERNATIVES} alternatives`,
      );
    }
    pending.unshift(...expanded);
  }
  return out;
}

/** The first `{...}` holding a top-level comma; a brace without one is literal. */
function firstBraceGroup(
  pattern: string,
): { open: number; close: number; alternatives: string[] } | null {
  for (let open = 0; open < pattern.length; open++) {
    if (pattern[open] === "\\") {
      open++;
      continue;
    }
    if (pattern[open] !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = open + 1; j < pattern.length; j++) {
      const c = pattern[j];
      if (c === "\\") j++;
      else if (c === "{") depth++;
      else if (c === "," && depth === 0) commas.push(j);
      else if (c === "}" && depth-- === 0) {
        if (commas.length === 0) break;
        const bounds = [open, ...commas, j];
        const alternatives = bounds.slice(1).map((end, k) => pattern.slice(bounds[k]! + 1, end));
        return { open, close: j, alternatives };
      }
    }
  }
  return null;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  blank: " \\t",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
};

/**
 * The bracket expression starting at `chars[start]` (`[`): its regex and the index after
 * it; null when it is not closed, "malformed" for an unknown `[:name:]`. Like wildmatch:
 * `!` or `^` negates, a `]` first is literal, `a-z` is a range, a backslash escapes, and
 * neither form ever matches `/`.
 */
function characterClass(
  chars: readonly string[],
  start: number,
): { source: string; end: number } | null | "malformed" {
  let j = start + 1;
  const negate = chars[j] === "!" || chars[j] === "^";
  if (negate) j++;
  let body = "";
  for (let first = true;; first = false) {
    let c = chars[j];
    if (c === undefined) return null;
    if (c === "]" && !first) break;
    if (c === "[" && chars[j + 1] === ":") {
      const close = chars.indexOf("]", j + 2);
      if (close < 0) return null;
      if (chars[close - 1] === ":" && close - 1 >= j + 2) {
        const name = chars.slice(j + 2, close - 1).join("");
        const members = POSIX_CLASSES[name];
        if (members === undefined) return "malformed";
        body += members;
        j = close + 1;
        continue;
      }
    }
    if (c === "\\") {
      c = chars[++j];
      if (c === undefined) return null;
    }
    j++;
    if (chars[j] === "-" && chars[j + 1] !== undefined && chars[j + 1] !== "]") {
      let hi = chars[j + 1]!;
      j += 2;
      if (hi === "\\") {
        const escaped = chars[j++];
        if (escaped === undefined) return null;
        hi = escaped;
      }
      // A reversed range matches nothing, as in wildmatch (a regex would throw).
      if (c.codePointAt(0)! <= hi.codePointAt(0)!) body += `${codePoint(c)}-${codePoint(hi)}`;
      continue;
    }
    body += codePoint(c);
  }
  const source = negate ? `[^/${body}]` : body === "" ? "(?!)" : `(?!/)[${body}]`;
  return { source, end: j + 1 };
}

function codePoint(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}
