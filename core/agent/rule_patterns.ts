// The two pattern languages of saved permission rules: `write` rules are path globs
// (gitignore-like, relative to the project root) and `exec` rules are command patterns
// matched against each simple command of a command line, where `*` matches any text.

import { BonsaiError } from "../errors.ts";
import { type ShellSplit, type ShellWord, splitShell } from "./shell_words.ts";
import { expandBraces, wildcardSource } from "./tools/glob_match.ts";

/** What a rule is about: file writes (write, edit) or commands (exec). */
export type RuleKind = "write" | "exec";

/** A saved allow or deny rule. */
export interface PermissionRule {
  readonly id: string;
  readonly effect: "allow" | "deny";
  readonly kind: RuleKind;
  readonly pattern: string;
  /** The canonical project root the rule is for, or null for every project. */
  readonly projectRoot: string | null;
}

/** A checked rule pattern, ready to match. */
export interface RulePattern {
  readonly kind: RuleKind;
  /** The pattern as the person wrote it. */
  readonly source: string;
  matches(subject: string): boolean;
}

/** Longest pattern accepted. */
const MAX_PATTERN = 1000;

/** Checks and compiles a pattern; a bad one is a USAGE error saying what is wrong. */
export function compileRulePattern(kind: RuleKind, pattern: string): RulePattern {
  if (pattern.trim() === "") throw bad(pattern, "it is empty");
  if (pattern.length > MAX_PATTERN) throw bad(pattern, `it is over ${MAX_PATTERN} characters`);
  if (pattern.includes("\0")) throw bad(pattern, "it contains a NUL character");
  if (kind === "write") {
    const regex = pathRegExp(pattern);
    return { kind, source: pattern, matches: (rel) => regex.test(rel) };
  }
  return { kind, source: pattern, matches: commandMatcher(pattern) };
}

function bad(pattern: string, why: string): BonsaiError {
  return new BonsaiError("USAGE", `Bad permission pattern '${pattern}': ${why}`, {
    data: { pattern },
  });
}

// --- write: paths ---------------------------------------------------------------------------

/**
 * A path glob as in .gitignore: `*`, `?`, `[...]` stay inside one directory, `**` spans any
 * number, `{a,b}` gives alternatives; a pattern without `/` matches a name at any depth, a
 * leading `/` anchors it at the project root, a trailing `/` means everything below.
 */
function pathRegExp(pattern: string): RegExp {
  let p = pattern.trim();
  if (p.startsWith("~")) throw bad(pattern, "paths are relative to the project root; '~' is not");
  while (p.startsWith("./")) p = p.slice(2);
  const anchored = p.startsWith("/") || p.slice(0, -1).includes("/");
  p = p.replace(/^\/+/, "");
  if (p.endsWith("/")) p += "**";
  if (p === "") throw bad(pattern, "it names the project root itself; use '**' for every file");
  if (p.split("/").some((s) => s === "..")) {
    throw bad(pattern, "'..' would leave the project; rules only match paths inside it");
  }
  const sources: string[] = [];
  for (const alternative of expandBraces(p)) {
    const source = wildcardSource(anchored ? alternative : `**/${alternative}`, {
      lenient: false,
    });
    if (source === null) throw bad(pattern, "a '[' is not closed or a class is unknown");
    sources.push(source);
  }
  return new RegExp(`^(?:${sources.join("|")})$`, "u");
}

// --- exec: commands --------------------------------------------------------------------------

/** A piece of a compiled command pattern. */
type Token =
  | { readonly literal: string }
  /** Any text. */
  | { readonly star: true }
  /** A `*` word of its own: nothing, or a space and any text. */
  | { readonly words: true };

/** Most wildcards one command pattern may hold. */
const MAX_STARS = 10;

/**
 * A command pattern: one simple command whose unquoted `*` matches any text (a `*` word of
 * its own also matches no words at all, so `git diff *` allows plain `git diff`). The first
 * word, the command, must be written out. Claude Code's `npm run test:*` is read as
 * `npm run test *`. Matching is linear in the command's length for each token (no regular
 * expression that could backtrack for ever).
 */
function commandMatcher(pattern: string): (command: string) => boolean {
  const text = pattern.trim().replace(/:\*$/, " *");
  const split = splitShell(text);
  if (split.unsure !== null || split.commands.length !== 1) {
    throw bad(
      pattern,
      split.unsure === null && split.commands.length > 1
        ? "it holds more than one command; add one rule for each"
        : `it must be one plain command (${split.unsure ?? "nothing to match"})`,
    );
  }
  const words = split.commands[0]!;
  if (words[0]!.stars.length > 0) {
    throw bad(pattern, "the command (first word) must be written out, without '*'");
  }
  if (words.reduce((n, w) => n + w.stars.length, 0) > MAX_STARS) {
    throw bad(pattern, `it has more than ${MAX_STARS} '*'`);
  }
  const tokens: Token[] = [];
  words.forEach((word, i) => {
    if (word.text === "*" && word.stars.length === 1) return tokens.push({ words: true });
    if (i > 0) tokens.push({ literal: " " });
    wordTokens(word, tokens);
  });
  return (command) => matchTokens(tokens, command);
}

/** A pattern word's literal runs (in canonical form) and its wildcards. */
function wordTokens(word: ShellWord, tokens: Token[]): void {
  let from = 0;
  for (const star of [...word.stars, word.text.length]) {
    const run = word.text.slice(from, star);
    if (run !== "" || (from === 0 && star === word.text.length)) {
      tokens.push({ literal: renderText(run, from === 0) });
    }
    if (star < word.text.length) tokens.push({ star: true });
    from = star + 1;
  }
}

/** Whether the tokens match all of `text`, tracking every position they can reach. */
function matchTokens(tokens: readonly Token[], text: string): boolean {
  let reach = new Uint8Array(text.length + 1);
  reach[0] = 1;
  for (const token of tokens) {
    const next = new Uint8Array(text.length + 1);
    let from = -1;
    for (let p = 0; p <= text.length; p++) {
      if (!reach[p]) continue;
      if ("literal" in token) {
        if (text.startsWith(token.literal, p)) next[p + token.literal.length] = 1;
      } else if ("star" in token) {
        if (from < 0) from = p;
      } else {
        next[p] = 1;
        if (text[p] === " " && from < 0) from = p + 1;
      }
    }
    if (from >= 0) next.fill(1, from);
    reach = next;
  }
  return reach[text.length] === 1;
}

/** Characters shown bare in the canonical form; a word with any other is single-quoted. */
const BARE = /[A-Za-z0-9_@%+=:,./~^*?[\]{}!-]/u;

/**
 * The canonical text of a word: what is the same word to the shell is the same text, and
 * no two different words share one. Bare when every character is safe, else single-quoted
 * whole. With `escapeStars`, a bare `*` is written `\*` (a literal star in a pattern).
 */
function renderText(text: string, atStart: boolean, escapeStars = false): string {
  if (text === "") return "''";
  const bare = Array.from(text).every((c, i) => BARE.test(c) && !(i === 0 && atStart && c === "~"));
  if (!bare) return `'${text.replace(/'/g, "'\\''")}'`;
  return escapeStars ? text.replace(/\*/g, "\\*") : text;
}

/** The canonical text of a simple command, the form command patterns are matched against. */
export function canonicalCommand(words: readonly ShellWord[]): string {
  return words.map((w) => renderText(w.text, true)).join(" ");
}

/**
 * The exact pattern for one simple command (what "always for this project" saves): it
 * matches that command and only it, up to quoting that changes nothing.
 */
export function exactCommandPattern(words: readonly ShellWord[]): string {
  return words.map((w) => renderText(w.text, true, true)).join(" ");
}

/** A path glob matching exactly one project-relative path. */
export function exactPathPattern(rel: string): string {
  return `/${rel.replace(/[\\*?[\]{}]/g, "\\$&")}`;
}

export type { ShellSplit };
