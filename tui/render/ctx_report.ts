import type { ContextReport } from "../../core/agent/context_report.ts";
import { formatCompact } from "./format.ts";
import type { Style } from "./style.ts";

/** `/ctx`: where the context window goes, with bars scaled to the window. */
export function renderContext(
  report: ContextReport,
  options: { style: Style; width: number; ascii: boolean },
): string {
  const { style } = options;
  const pct = (n: number) => (report.window ? (n / report.window) * 100 : 0);
  const head = `${style.bold("Context")} ${formatCompact(report.total)} of ${
    formatCompact(report.window)
  } tokens (${pct(report.total).toFixed(1)}%) · older turns are summarised at ${
    Math.round(report.compactAt * 100)
  }%`;
  const barWidth = Math.max(10, Math.min(40, options.width - 42));
  const full = options.ascii ? "#" : "█";
  const rows = report.parts.map((p) => {
    const cells = Math.round((pct(p.tokens) / 100) * barWidth);
    const bar = p.tokens > 0 && cells === 0 ? (options.ascii ? "." : "▏") : full.repeat(cells);
    return `  ${p.name.padEnd(24)} ${formatCompact(p.tokens).padStart(6)} ${
      pct(p.tokens).toFixed(1).padStart(5)
    }%  ${style.cyan(bar)}`;
  });
  const free = Math.max(0, report.window - report.total);
  rows.push(
    `  ${style.dim("free".padEnd(24))} ${formatCompact(free).padStart(6)} ${
      pct(free).toFixed(1).padStart(5)
    }%`,
  );
  const note = report.summarisedItems > 0
    ? style.dim(
      `  ${report.summarisedItems} older messages are summarised; they stay stored and searchable (recall, /search).`,
    )
    : style.dim("  Nothing summarised yet: every turn is sent in full.");
  return `${head}\n${rows.join("\n")}\n${note}\n`;
}
