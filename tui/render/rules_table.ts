import type { StoredPermissionRule } from "../../core/service/permission_admin.ts";
import type { Style } from "./style.ts";
import { renderTable } from "./table.ts";

/** How wide and in what style a rules table is drawn. */
export interface RulesTableOptions {
  readonly width: number;
  readonly style: Style;
  readonly ascii: boolean;
  /** Show each rule's project root (when rules of several projects are listed). */
  readonly showProject: boolean;
  /** Each rule's shortest unambiguous id. */
  readonly shortIds: ReadonlyMap<string, string>;
}

/** Saved permission rules as a table: id, effect, kind, pattern, scope. Deny rules in red. */
export function renderRules(
  rules: readonly StoredPermissionRule[],
  options: RulesTableOptions,
): string {
  const { style } = options;
  return renderTable(
    [
      { header: "ID", paint: (t) => style.cyan(t) },
      {
        header: "RULE",
        paint: (t) => (t === "deny" ? style.red(t) : style.green(t)),
      },
      { header: "KIND" },
      { header: "PATTERN", shrink: true, min: 12, paint: (t) => style.bold(t) },
      { header: "SCOPE", shrink: true, min: 10 },
    ],
    rules.map((r) => [
      options.shortIds.get(r.id) ?? r.id,
      r.effect,
      r.kind,
      r.pattern,
      r.projectRoot === null
        ? "every project"
        : options.showProject
        ? r.projectRoot
        : "this project",
    ]),
    { width: options.width, style, ascii: options.ascii },
  );
}
