import type { LedgerTotals } from "../../core/storage/ledger.ts";
import type { Session } from "../../core/storage/sessions.ts";
import { formatCompact, formatUsd } from "./format.ts";
import type { Style } from "./style.ts";
import { renderTable } from "./table.ts";

/** Per-lane, per-model totals, as the ledger reports them. */
export type LaneModelTotals = LedgerTotals & { lane: string; provider: string; model: string };

/** `/perf` (alias `/cost`): this session's usage — turns, tokens by kind, cost (exact or floor), cache saving, by lane and model. */
export function renderPerf(
  input: {
    title: string;
    id: string;
    totals: LedgerTotals;
    rows: readonly LaneModelTotals[];
    subagents?: readonly Pick<Session, "id" | "title" | "status" | "model" | "messageCount">[];
  },
  options: { style: Style; width: number; ascii: boolean },
): string {
  const { style } = options;
  const t = input.totals;
  const floor = t.unpricedAttempts > 0 || t.inexactAttempts > 0;
  const cost = formatUsd(t.costUsd, { floor, ascii: options.ascii });
  const why = [
    t.unpricedAttempts
      ? `${t.unpricedAttempts} turn${t.unpricedAttempts > 1 ? "s" : ""} without a known price`
      : null,
    t.inexactAttempts ? `${t.inexactAttempts} without exact usage` : null,
  ].filter(Boolean).join(", ");
  const prompt = t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  const saving = t.baselineCostUsd - t.costUsd;
  const lines = [
    `${style.bold(input.title)} ${style.dim(input.id)}`,
    `${label("turns", style)}${t.turns} completed${
      t.attempts !== t.turns ? `, ${t.attempts - t.turns} failed attempts` : ""
    }`,
    `${label("tokens", style)}input ${formatCompact(t.inputTokens)} · output ${
      formatCompact(t.outputTokens)
    } · cache read ${formatCompact(t.cacheReadTokens)} · cache write ${
      formatCompact(t.cacheWriteTokens)
    } · reasoning ${formatCompact(t.reasoningTokens)}`,
    `${label("cost", style)}${floor ? style.yellow(cost) : cost}${
      why ? style.dim(` (a floor: ${why})`) : style.dim(" (exact)")
    }`,
    `${label("cache", style)}hit rate ${
      prompt ? Math.round((t.cacheReadTokens / prompt) * 100) : 0
    }% · saved ${formatUsd(Math.max(0, saving))} against no cache${
      t.baselineCostUsd > 0 ? ` (${Math.round((saving / t.baselineCostUsd) * 100)}%)` : ""
    }`,
  ];
  if (input.rows.length === 0) return `${lines.join("\n")}\n${style.dim("No model turns yet.")}\n`;
  const table = renderTable(
    [
      { header: "LANE" },
      { header: "MODEL", shrink: true, min: 12 },
      { header: "TURNS", align: "right" },
      { header: "INPUT", align: "right" },
      { header: "OUTPUT", align: "right" },
      { header: "CACHE R", align: "right", drop: 2 },
      { header: "CACHE W", align: "right", drop: 1 },
      { header: "COST", align: "right" },
    ],
    input.rows.map((r) => [
      r.lane,
      r.model,
      String(r.turns),
      formatCompact(r.inputTokens),
      formatCompact(r.outputTokens),
      formatCompact(r.cacheReadTokens),
      formatCompact(r.cacheWriteTokens),
      r.unpricedAttempts
        ? (r.costUsd > 0 ? formatUsd(r.costUsd, { floor: true, ascii: options.ascii }) : "unpriced")
        : formatUsd(r.costUsd),
    ]),
    { width: options.width, style, ascii: options.ascii },
  );
  const subagents = (input.subagents ?? []).map((a) =>
    `  ${style.cyan(a.id.slice(0, 10))} ${a.title} ${
      style.dim(`· ${a.status} · ${a.model ?? "-"} · ${a.messageCount} messages`)
    }`
  );
  return `${lines.join("\n")}\n\n${table}${
    subagents.length
      ? `\n${style.bold("subagents")} ${style.dim("(usage in lane subagent above)")}\n${
        subagents.join("\n")
      }\n`
      : ""
  }`;
}

function label(name: string, style: Style): string {
  return style.dim(name.padEnd(8));
}
