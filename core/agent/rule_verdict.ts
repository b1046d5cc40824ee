// What the saved rules say about one permission request: the deny rule that matches any
// part, the allow rules that together cover every part, and what "always for this project"
// would save.

import { isAbsolute, relative, resolve, sep } from "node:path";
import { isBonsaiError } from "../errors.ts";
import {
  canonicalCommand,
  compileRulePattern,
  exactCommandPattern,
  exactPathPattern,
  type PermissionRule,
  type RuleKind,
  type RulePattern,
} from "./rule_patterns.ts";
import { type ShellWord, splitShell } from "./shell_words.ts";
import { confine } from "./tools/paths.ts";

/** The rules' say on one request. */
export interface RuleMatch {
  /** A deny rule matching some part: it decides. */
  readonly deny: PermissionRule | null;
  /** Allow rules covering every part (one per part, without repeats), or null. */
  readonly allow: readonly PermissionRule[] | null;
  /** The exact allow patterns "always for this project" would save, or null when none can be. */
  readonly saves: readonly string[] | null;
  /** Why no allow rule may vouch for the request, or null. */
  readonly unsure: string | null;
  /** Parts may run that deny rules cannot see, and there are deny rules of this kind. */
  readonly hidesFromDeny: boolean;
}

const NOTHING: RuleMatch = {
  deny: null,
  allow: null,
  saves: null,
  unsure: null,
  hidesFromDeny: false,
};

/** Commands that run the rest of their words as a command (looked through for deny rules). */
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "nohup",
  "time",
  "command",
  "builtin",
  "exec",
  "nice",
  "ionice",
  "stdbuf",
  "timeout",
  "xargs",
  "watch",
]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "fish"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Judges requests against rules, compiling each pattern once. */
export class RuleVerdicts {
  readonly #root: string | null;
  readonly #compiled = new Map<string, RulePattern | null>();

  constructor(root: string | null) {
    this.#root = root;
  }

  /** The rules' say on `request` (nothing when it has no subject or there is no project). */
  judge(
    request: { readonly kind: RuleKind; readonly subject?: string },
    rules: readonly PermissionRule[],
  ): RuleMatch {
    const subject = request.subject;
    if (subject === undefined || this.#root === null) return NOTHING;
    const mine = rules.filter((r) => r.kind === request.kind);
    const parts = request.kind === "exec" ? commandParts(subject) : this.#pathParts(subject);
    const denies = mine.filter((r) => r.effect === "deny");
    const deny = denies.find((r) => parts.denyViews.some((v) => this.#matches(r, v, true))) ??
      null;
    const allows = mine.filter((r) => r.effect === "allow");
    let allow: PermissionRule[] | null = null;
    if (parts.unsure === null && parts.views.length > 0) {
      allow = [];
      for (const view of parts.views) {
        const rule = allows.find((r) => this.#matches(r, view, false));
        if (!rule) {
          allow = null;
          break;
        }
        if (!allow.includes(rule)) allow.push(rule);
      }
    }
    const saves = parts.unsure === null && parts.views.length > 0
      ? [
        ...new Set(
          parts.exact.filter((_, i) =>
            !allows.some((r) => this.#matches(r, parts.views[i]!, false))
          ),
        ),
      ]
      : null;
    return {
      deny,
      allow,
      saves,
      unsure: parts.unsure,
      hidesFromDeny: parts.concealed && denies.length > 0,
    };
  }

  /** A stored pattern that no longer compiles never allows, and denies everything of its kind. */
  #matches(rule: PermissionRule, view: string, denying: boolean): boolean {
    const key = `${rule.kind}\0${rule.pattern}`;
    let pattern = this.#compiled.get(key);
    if (pattern === undefined) {
      try {
        pattern = compileRulePattern(rule.kind, rule.pattern);
      } catch (err) {
        if (!isBonsaiError(err, "USAGE")) throw err;
        pattern = null;
      }
      this.#compiled.set(key, pattern);
    }
    return pattern === null ? denying : pattern.matches(view);
  }

  /**
   * A write path as rules see it, relative to the root: as written and with symbolic links
   * resolved (deny rules match either; allow rules must match both). A path outside the
   * project is matched by no rule (the tools refuse it anyway).
   */
  #pathParts(path: string): Parts {
    const root = this.#root!;
    const lexical = relative(root, resolve(root, path));
    if (
      lexical === "" || lexical === ".." || lexical.startsWith(`..${sep}`) || isAbsolute(lexical)
    ) {
      return {
        views: [],
        denyViews: [],
        exact: [],
        unsure: "the path is outside the project",
        concealed: false,
      };
    }
    let real = lexical;
    try {
      real = confine(root, path).rel;
    } catch (err) {
      if (!isBonsaiError(err, "USAGE")) throw err;
      return {
        views: [],
        denyViews: [lexical],
        exact: [],
        unsure: "the path leads outside the project",
        concealed: false,
      };
    }
    const views = [...new Set([lexical, real].map((p) => p.split(sep).join("/")))];
    return {
      views,
      denyViews: views,
      exact: views.map(exactPathPattern),
      unsure: null,
      concealed: false,
    };
  }
}

interface Parts {
  /** What allow rules must each cover. */
  readonly views: readonly string[];
  /** What a deny rule may match (more: wrappers and `sh -c` strings looked through). */
  readonly denyViews: readonly string[];
  /** The exact pattern of each view. */
  readonly exact: readonly string[];
  readonly unsure: string | null;
  readonly concealed: boolean;
}

function commandParts(line: string): Parts {
  const split = splitShell(line);
  const views = split.commands.map(canonicalCommand);
  const denyViews = new Set(views);
  let concealed = split.concealed;
  for (const words of split.commands) {
    const inner = lookThrough(words, 0);
    for (const v of inner.views) denyViews.add(v);
    concealed ||= inner.concealed;
  }
  return {
    views,
    denyViews: [...denyViews],
    exact: split.commands.map(exactCommandPattern),
    unsure: split.unsure ?? (views.length === 0 ? "there is no command" : null),
    concealed,
  };
}

/**
 * What a simple command runs beneath assignments, wrappers (`sudo`, `env`, `xargs`, ...),
 * `sh -c '...'` and `eval`: more commands for deny rules to see. A best effort, as in any
 * rule system over command lines; it only ever adds views.
 */
function lookThrough(
  words: readonly ShellWord[],
  depth: number,
): { views: string[]; concealed: boolean } {
  if (depth > 4) return { views: [], concealed: true };
  let i = 0;
  const views: string[] = [];
  let concealed = false;
  // `/bin/rm` runs rm: the command is also seen by its base name.
  const see = (rest: readonly ShellWord[]) => {
    views.push(canonicalCommand(rest));
    const base = rest[0]!.text.split("/").at(-1)!;
    if (base !== rest[0]!.text && base !== "") {
      views.push(canonicalCommand([{ text: base, stars: [] }, ...rest.slice(1)]));
    }
  };
  for (;;) {
    while (i < words.length && ASSIGNMENT.test(words[i]!.text)) i++;
    const name = words[i]?.text.split("/").at(-1);
    if (name === undefined) break;
    if (WRAPPERS.has(name)) {
      i++;
      while (
        i < words.length && (words[i]!.text.startsWith("-") || ASSIGNMENT.test(words[i]!.text))
      ) i++;
      if (name === "timeout" && /^[0-9.]+[smhd]?$/.test(words[i]?.text ?? "")) i++;
      if (i < words.length) see(words.slice(i));
      continue;
    }
    let script: string | null = null;
    if (name === "eval") script = words.slice(i + 1).map((w) => w.text).join(" ");
    if (SHELLS.has(name)) {
      const flag = words.findIndex((w, k) => k > i && /^-[a-z]*c[a-z]*$/.test(w.text));
      if (flag > 0) script = words[flag + 1]?.text ?? "";
    }
    if (script !== null) {
      const inner = splitShell(script);
      concealed ||= inner.concealed;
      for (const c of inner.commands) {
        see(c);
        const deeper = lookThrough(c, depth + 1);
        views.push(...deeper.views);
        concealed ||= deeper.concealed;
      }
    }
    break;
  }
  if (i < words.length) see(words.slice(i));
  return { views, concealed };
}
