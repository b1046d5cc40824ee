import { raceAbort } from "../abort.ts";
import { messageOf } from "../errors.ts";
import { type RuleMatch, RuleVerdicts } from "./rule_verdict.ts";
import type { PermissionRule, RuleKind } from "./rule_patterns.ts";

export type { PermissionRule };
import type { ToolPermission } from "./tools/tool.ts";

/**
 * A person's answer to a permission prompt: once, always for this session, always for this
 * project (saves an allow rule), or no.
 */
export type PermissionAnswer = "once" | "always" | "project" | "deny";

/** What is being asked. */
export interface PermissionRequest {
  readonly tool: string;
  readonly kind: Exclude<ToolPermission, "none">;
  /** The command or path, shortened. */
  readonly summary: string;
  /**
   * What saved rules are matched against: the whole command line (exec) or the path as the
   * model gave it (write, edit). Without it no rule applies.
   */
  readonly subject?: string;
  /**
   * Set by the gate before asking: the allow patterns "always for this project" would save,
   * or null when none can be (a command line with substitutions, a path outside the project).
   */
  readonly saves?: readonly string[] | null;
}

/** The saved rules a gate consults. */
export interface PermissionRules {
  /** The rules in force for the gate's project (its own and global ones), read at each request. */
  list(): readonly PermissionRule[];
  /** Saves allow rules of `kind` for the gate's project ("always for this project"). */
  saveForProject(kind: RuleKind, patterns: readonly string[]): PermissionRule[];
}

/** How a request was settled, for the record (every request and answer is stored). */
export interface PermissionDecision {
  readonly granted: boolean;
  /**
   * rule: saved rules (`rules` names them); flag: --allow; session: "always" earlier;
   * user: asked now; headless: no one to ask; guard: a flag or earlier answer would have
   * allowed it, but the command line hides parts deny rules cannot see, and no one could be
   * asked; cancelled: the run was cancelled while the question was open.
   */
  readonly by: "rule" | "flag" | "session" | "user" | "headless" | "guard" | "cancelled";
  readonly answer: PermissionAnswer | null;
  /** The deciding rules: one deny rule, or the allow rules that cover every part. */
  readonly rules?: readonly PermissionRule[];
  /** Rules saved by the answer "project". */
  readonly saved?: readonly PermissionRule[];
  /** Why the answer "project" saved nothing (the request was still allowed). */
  readonly notSaved?: string;
}

/** Asks a person; settles "deny" or rejects when `signal` aborts. */
export type PermissionAsker = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<PermissionAnswer>;

/** What a gate is built from. */
export interface PermissionGateOptions {
  /** Kinds allowed by flag (`--allow`); deny rules still win. */
  allow?: Iterable<"write" | "exec">;
  ask?: PermissionAsker | null;
  /** Saved rules; none when absent. */
  rules?: PermissionRules | null;
  /** The canonical project root write paths are taken relative to. */
  root?: string | null;
}

/**
 * Decides whether write/exec tools may run. Order: a matching deny rule denies; allow rules
 * covering every part allow; then --allow flags, then earlier "always" answers (neither for
 * a command line that hides parts from existing deny rules); else a person is asked (or,
 * headless, it is denied).
 */
export class PermissionGate {
  readonly #allowed: Set<string>;
  readonly #ask: PermissionAsker | null;
  readonly #rules: PermissionRules | null;
  readonly #verdicts: RuleVerdicts;

  constructor(options: PermissionGateOptions) {
    this.#allowed = new Set(options.allow ?? []);
    this.#ask = options.ask ?? null;
    this.#rules = options.rules ?? null;
    this.#verdicts = new RuleVerdicts(options.root ?? null);
  }

  /** Settles a request; a cancelled run never leaves the question hanging. */
  async decide(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision> {
    const rules = this.#rules?.list() ?? [];
    const verdict: RuleMatch = this.#verdicts.judge(request, rules);
    if (verdict.deny) return { granted: false, by: "rule", answer: null, rules: [verdict.deny] };
    if (verdict.allow) return { granted: true, by: "rule", answer: null, rules: verdict.allow };
    const guarded = verdict.hidesFromDeny;
    if (!guarded && this.#allowed.has(request.kind)) {
      return { granted: true, by: "flag", answer: null };
    }
    if (!guarded && this.#allowed.has(`${request.kind}:session`)) {
      return { granted: true, by: "session", answer: "always" };
    }
    if (!this.#ask) {
      const byFlag = this.#allowed.has(request.kind) ||
        this.#allowed.has(`${request.kind}:session`);
      return { granted: false, by: byFlag ? "guard" : "headless", answer: null };
    }
    if (signal.aborted) return { granted: false, by: "cancelled", answer: null };
    let answer: PermissionAnswer;
    try {
      answer = await raceAbort(this.#ask({ ...request, saves: verdict.saves }, signal), signal);
    } catch (err) {
      if (signal.aborted) return { granted: false, by: "cancelled", answer: null };
      throw err;
    }
    if (answer === "always") this.#allowed.add(`${request.kind}:session`);
    if (answer !== "project") return { granted: answer !== "deny", by: "user", answer };
    return { granted: true, by: "user", answer, ...this.#save(request, verdict) };
  }

  #save(request: PermissionRequest, verdict: RuleMatch): Partial<PermissionDecision> {
    if (!this.#rules) return { notSaved: "no rules can be saved here" };
    if (!verdict.saves || verdict.saves.length === 0) {
      return { notSaved: verdict.unsure ?? "there is nothing to save" };
    }
    try {
      return { saved: this.#rules.saveForProject(request.kind, verdict.saves) };
    } catch (err) {
      // The person said yes: the call runs; only the rule is missing, and the record says so.
      return { notSaved: `could not save the rule: ${messageOf(err)}` };
    }
  }
}

/** A rule in a line, with its whole id: `01jc9x2k7v… (allow exec 'npm test', this project)`. */
export function describeRule(rule: PermissionRule): string {
  return `${rule.id} (${rule.effect} ${rule.kind} '${rule.pattern}', ${
    rule.projectRoot === null ? "every project" : "this project"
  })`;
}

function ruleList(rules: readonly PermissionRule[]): string {
  return `${rules.length === 1 ? "rule" : "rules"} ${rules.map(describeRule).join(" and ")}`;
}

/** One line for the transcript describing a decision. */
export function describeDecision(request: PermissionRequest, decision: PermissionDecision): string {
  const what = `Permission to ${
    request.kind === "exec" ? "run" : "write"
  } (${request.tool}): ${request.summary}`;
  switch (decision.by) {
    case "rule":
      return `${what} — ${decision.granted ? "allowed" : "denied"} by saved ${
        ruleList(decision.rules ?? [])
      }`;
    case "flag":
      return `${what} — allowed by --allow ${request.kind}`;
    case "session":
      return `${what} — allowed (always for this session)`;
    case "headless":
      return `${what} — denied: no one to ask in headless mode (pass --allow ${request.kind} or --allow-all, or save an allow rule with bonsai permissions add)`;
    case "guard":
      return `${what} — denied: the command line has parts bonsai cannot read (substitutions, here-docs, ...), so --allow ${request.kind} does not cover it while deny rules exist, and no one could be asked`;
    case "cancelled":
      return `${what} — not answered: the run was cancelled`;
    case "user":
      return `${what} — ${userWords(decision)}`;
  }
}

function userWords(decision: PermissionDecision): string {
  switch (decision.answer) {
    case "deny":
      return "denied by the user";
    case "always":
      return "allowed always for this session";
    case "project":
      return decision.saved && decision.saved.length > 0
        ? `allowed always for this project (saved ${ruleList(decision.saved)})`
        : `allowed once (always for this project was asked, but ${decision.notSaved})`;
    default:
      return "allowed once";
  }
}

/** What the model is told when a call was not allowed. */
export function denialReason(request: PermissionRequest, decision: PermissionDecision): string {
  switch (decision.by) {
    case "rule":
      return `Permission denied by the user's saved rule: deny ${request.kind} '${
        decision.rules?.[0]?.pattern ?? ""
      }'`;
    case "headless":
      return `Permission denied: ${request.kind} tools are not allowed in this run (the user must pass --allow ${request.kind} or save an allow rule)`;
    case "guard":
      return "Permission denied: the command has parts that cannot be checked against the user's deny rules (substitutions, here-docs); write it as plain commands";
    default:
      return "Permission denied by the user";
  }
}
