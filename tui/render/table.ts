import type { Style } from "./style.ts";
import { displayWidth, pad, truncate } from "./width.ts";

/** One table column. */
export interface Column {
  readonly header: string;
  readonly align?: "left" | "right";
  /** May be cut (with an ellipsis) to fit the terminal; widest shrinkable columns go first. */
  readonly shrink?: boolean;
  /** Narrowest a shrinkable column gets. Default 8. */
  readonly min?: number;
  /** Left out when the table cannot fit otherwise; lower numbers go first. */
  readonly drop?: number;
  /** Applied to a cell after fitting (colour); must not change its width. */
  readonly paint?: (text: string, row: number) => string;
}

/** Layout options. */
export interface TableOptions {
  /** Terminal width to fit into. */
  readonly width: number;
  readonly style: Style;
  /** Rows printed after a rule (totals). */
  readonly footer?: readonly (readonly string[])[];
  /** Use ASCII for the rule. */
  readonly ascii?: boolean;
}

const GAP = 2;

/** A borderless table: bold header, aligned columns, fitted to the width. */
export function renderTable(
  allColumns: readonly Column[],
  allRows: readonly (readonly string[])[],
  options: TableOptions,
): string {
  const keep = visibleColumns(allColumns, [...allRows, ...(options.footer ?? [])], options.width);
  const columns = keep.map((i) => allColumns[i]!);
  const pick = (r: readonly string[]) => keep.map((i) => r[i] ?? "");
  const rows = allRows.map(pick);
  const footer = options.footer?.map(pick);
  const all = [...rows, ...(footer ?? [])];
  const widths = columns.map((c, i) =>
    Math.max(displayWidth(c.header), ...all.map((r) => displayWidth(r[i] ?? "")))
  );
  fit(columns, widths, options.width);
  const { style } = options;
  const line = (cells: readonly string[], row: number, paint: boolean) =>
    columns.map((c, i) => {
      const text = truncate(cells[i] ?? "", widths[i]!);
      const painted = paint && c.paint ? c.paint(text, row) : text;
      const last = i === columns.length - 1;
      return last && c.align !== "right" ? painted : pad(painted, widths[i]!, c.align);
    }).join(" ".repeat(GAP)).trimEnd();
  const out = [style.bold(line(columns.map((c) => c.header), -1, false))];
  rows.forEach((r, i) => out.push(line(r, i, true)));
  if (footer && footer.length > 0) {
    const total = widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
    out.push(style.dim((options.ascii ? "-" : "─").repeat(total)));
    footer.forEach((r) => out.push(style.bold(line(r, -1, false))));
  }
  return out.join("\n") + "\n";
}

/** Indexes of the columns to show: droppable ones go (lowest `drop` first) until the rest fits. */
function visibleColumns(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number,
): number[] {
  const need = (i: number) => {
    const c = columns[i]!;
    const natural = Math.max(displayWidth(c.header), ...rows.map((r) => displayWidth(r[i] ?? "")));
    return c.shrink ? Math.min(natural, c.min ?? 8) : natural;
  };
  const keep = columns.map((_, i) => i);
  const droppable = keep.filter((i) => columns[i]!.drop !== undefined)
    .sort((a, b) => columns[a]!.drop! - columns[b]!.drop!);
  const total = () => keep.reduce((sum, i) => sum + need(i), 0) + GAP * (keep.length - 1);
  for (const i of droppable) {
    if (total() <= width) break;
    keep.splice(keep.indexOf(i), 1);
  }
  return keep;
}

function fit(columns: readonly Column[], widths: number[], target: number): void {
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
  while (total() > target) {
    let widest = -1;
    columns.forEach((c, i) => {
      if (!c.shrink || widths[i]! <= (c.min ?? 8)) return;
      if (widest < 0 || widths[i]! > widths[widest]!) widest = i;
    });
    if (widest < 0) return; // nothing left to shrink: let the terminal wrap
    widths[widest] = Math.max(columns[widest]!.min ?? 8, widths[widest]! - (total() - target));
  }
}
