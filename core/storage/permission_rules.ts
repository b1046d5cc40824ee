import type { Db } from "./db.ts";

/** A saved permission rule as stored (the gate's `PermissionRule` plus when it was made). */
export interface StoredPermissionRule {
  readonly id: string;
  readonly effect: "allow" | "deny";
  readonly kind: "write" | "exec";
  readonly pattern: string;
  /** The canonical project root it is for, or null for every project. */
  readonly projectRoot: string | null;
  readonly createdAt: number;
}

/** What to list: every rule, the rules in force for one project, or one scope exactly. */
export type RuleFilter =
  | { readonly all: true }
  | { readonly inForce: string }
  | { readonly scope: string | null };

interface RuleRecord {
  id: string;
  effect: "allow" | "deny";
  kind: "write" | "exec";
  pattern: string;
  project_root: string | null;
  created_at: number;
}

const COLUMNS = "id, effect, kind, pattern, project_root, created_at";

/** Saved allow/deny rules for write and exec tools, in `permission_rules`. */
export class PermissionRuleStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Saves a rule (its pattern already checked) and returns it; the same rule saved twice is
   * kept once, and the one already there is returned.
   */
  add(
    id: string,
    rule: Pick<StoredPermissionRule, "effect" | "kind" | "pattern" | "projectRoot">,
  ): StoredPermissionRule {
    const db = this.#db;
    return db.write(() => {
      const existing = db.prepare(
        `SELECT ${COLUMNS} FROM permission_rules
         WHERE effect = ? AND kind = ? AND pattern = ? AND COALESCE(project_root, '') = ?`,
      ).get(rule.effect, rule.kind, rule.pattern, rule.projectRoot ?? "") as
        | RuleRecord
        | undefined;
      if (existing) return fromRecord(existing);
      const createdAt = db.clock.now();
      db.prepare(
        `INSERT INTO permission_rules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(id, rule.effect, rule.kind, rule.pattern, rule.projectRoot, createdAt);
      return { id, ...rule, createdAt };
    });
  }

  /** Rules by filter, oldest first. */
  list(filter: RuleFilter): StoredPermissionRule[] {
    const db = this.#db;
    const rows = "all" in filter
      ? db.prepare(`SELECT ${COLUMNS} FROM permission_rules ORDER BY id`).all()
      : "inForce" in filter
      ? db.prepare(
        `SELECT ${COLUMNS} FROM permission_rules
         WHERE project_root IS NULL OR project_root = ? ORDER BY id`,
      ).all(filter.inForce)
      : filter.scope === null
      ? db.prepare(`SELECT ${COLUMNS} FROM permission_rules WHERE project_root IS NULL ORDER BY id`)
        .all()
      : db.prepare(`SELECT ${COLUMNS} FROM permission_rules WHERE project_root = ? ORDER BY id`)
        .all(filter.scope);
    return (rows as unknown as RuleRecord[]).map(fromRecord);
  }

  /** The rules whose id starts with `prefix` (lower case), oldest first. */
  byPrefix(prefix: string): StoredPermissionRule[] {
    const rows = this.#db.prepare(
      `SELECT ${COLUMNS} FROM permission_rules WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 2`,
    ).all(prefix.length, prefix.toLowerCase()) as unknown as RuleRecord[];
    return rows.map(fromRecord);
  }

  /** Removes one rule; false when it was not there. */
  remove(id: string): boolean {
    const db = this.#db;
    return db.write(() =>
      Number(db.prepare("DELETE FROM permission_rules WHERE id = ?").run(id).changes) > 0
    );
  }
}

function fromRecord(r: RuleRecord): StoredPermissionRule {
  return {
    id: r.id,
    effect: r.effect,
    kind: r.kind,
    pattern: r.pattern,
    projectRoot: r.project_root,
    createdAt: r.created_at,
  };
}
