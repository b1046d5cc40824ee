import type { PermissionRule, PermissionRules } from "../agent/permissions.ts";
import { compileRulePattern, type RuleKind } from "../agent/rule_patterns.ts";
import { BonsaiError } from "../errors.ts";
import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import { PermissionRuleStore, type StoredPermissionRule } from "../storage/permission_rules.ts";

export type { StoredPermissionRule };

/** A rule to save, as typed by a person (checked here). */
export interface NewRule {
  readonly effect: string;
  readonly kind: string;
  readonly pattern: string;
  /** A canonical project root, or null for every project. */
  readonly projectRoot: string | null;
}

/** Which rules to list. */
export type RuleListing =
  | { readonly all: true }
  /** The rules in force in the project at this canonical root: its own and global ones. */
  | { readonly inForce: string };

/**
 * Saved permission rules for every front end (`bonsai permissions`, `/permissions`, the
 * session host's gate): patterns are checked before anything is stored.
 */
export class PermissionAdmin {
  readonly #store: PermissionRuleStore;
  readonly #ids: Ids;

  constructor(db: Db, ids: Ids) {
    this.#store = new PermissionRuleStore(db);
    this.#ids = ids;
  }

  /** Rules, oldest first. */
  list(listing: RuleListing): StoredPermissionRule[] {
    return this.#store.list(listing);
  }

  /**
   * Saves a rule after checking it (USAGE: a bad effect, kind or pattern; nothing is
   * stored). Saving a rule that exists returns the existing one.
   */
  add(rule: NewRule): StoredPermissionRule {
    if (rule.effect !== "allow" && rule.effect !== "deny") {
      throw new BonsaiError(
        "USAGE",
        `A rule is 'allow' or 'deny', not '${rule.effect}'`,
      );
    }
    const kind = ruleKind(rule.kind);
    const pattern = rule.pattern.trim();
    compileRulePattern(kind, pattern);
    return this.#store.add(this.#ids.next(), {
      effect: rule.effect,
      kind,
      pattern,
      projectRoot: rule.projectRoot,
    });
  }

  /**
   * The shortest unambiguous prefix of every rule's id, at least 10 characters (rules saved
   * together differ only at the end of their ids).
   */
  shortIds(): Map<string, string> {
    const ids = this.#store.list({ all: true }).map((r) => r.id);
    const out = new Map<string, string>();
    ids.forEach((id, i) => {
      const shared = Math.max(common(id, ids[i - 1] ?? ""), common(id, ids[i + 1] ?? ""));
      out.set(id, id.slice(0, Math.max(10, shared + 1)));
    });
    return out;
  }

  /** Removes the rule an id prefix names (NOT_FOUND, AMBIGUOUS_ID) and returns it. */
  remove(prefix: string): StoredPermissionRule {
    const wanted = prefix.trim().toLowerCase();
    if (!/^[0-9a-z]+$/.test(wanted)) {
      throw new BonsaiError(
        "USAGE",
        `A rule id (or a unique prefix of one) is required, not '${prefix}'`,
      );
    }
    const found = this.#store.byPrefix(wanted);
    if (found.length === 0) {
      throw new BonsaiError("NOT_FOUND", `No permission rule id starts with '${prefix}'`);
    }
    if (found.length > 1) {
      throw new BonsaiError(
        "AMBIGUOUS_ID",
        `Rule id prefix '${prefix}' matches several rules; type more of it`,
      );
    }
    this.#store.remove(found[0]!.id);
    return found[0]!;
  }

  /** The gate's view for the project at `root`: rules in force, and "always for this project". */
  gateRules(root: string): PermissionRules {
    return {
      list: (): readonly PermissionRule[] => this.#store.list({ inForce: root }),
      saveForProject: (kind, patterns) =>
        patterns.map((pattern) => this.add({ effect: "allow", kind, pattern, projectRoot: root })),
    };
  }
}

function common(a: string, b: string): number {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}

function ruleKind(kind: string): RuleKind {
  if (kind === "write" || kind === "exec") return kind;
  throw new BonsaiError(
    "USAGE",
    `A rule is about 'write' (file paths) or 'exec' (commands), not '${kind}'`,
  );
}
