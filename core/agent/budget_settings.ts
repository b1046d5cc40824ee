import { BonsaiError } from "../errors.ts";
import type { BudgetLimits } from "./budget.ts";

/** One budget: its flag, saved-setting key, field, and how its value is written. */
export interface BudgetOption {
  /** Command-line flag without dashes. */
  readonly flag: string;
  /** Saved setting key (`/settings`, B1). */
  readonly setting: string;
  readonly field: keyof BudgetLimits;
  readonly kind: "count" | "duration" | "usd";
  readonly description: string;
}

/** Every budget (B2, B3), all off unless set. */
export const BUDGET_OPTIONS: readonly BudgetOption[] = [
  {
    flag: "max-turns",
    setting: "budget.max_turns",
    field: "maxTurns",
    kind: "count",
    description: "model turns per run",
  },
  {
    flag: "max-run-time",
    setting: "budget.max_run_time",
    field: "maxRunTimeMs",
    kind: "duration",
    description: "wall time per run",
  },
  {
    flag: "max-generation-time",
    setting: "budget.max_generation_time",
    field: "maxGenerationMs",
    kind: "duration",
    description: "time per provider attempt",
  },
  {
    flag: "max-output-chars",
    setting: "budget.max_output_chars",
    field: "maxOutputChars",
    kind: "count",
    description: "streamed characters per provider attempt",
  },
  {
    flag: "tool-timeout",
    setting: "budget.tool_timeout",
    field: "toolTimeoutMs",
    kind: "duration",
    description: "time per tool call",
  },
  {
    flag: "session-max-turns",
    setting: "budget.session_max_turns",
    field: "sessionMaxTurns",
    kind: "count",
    description: "model turns per session, across resumes",
  },
  {
    flag: "session-max-output",
    setting: "budget.session_max_output",
    field: "sessionMaxOutput",
    kind: "count",
    description: "streamed characters per session",
  },
  {
    flag: "session-max-time",
    setting: "budget.session_max_time",
    field: "sessionMaxTimeMs",
    kind: "duration",
    description: "active run time per session",
  },
  {
    flag: "session-max-cost",
    setting: "budget.session_max_cost",
    field: "sessionMaxCostUsd",
    kind: "usd",
    description: "cost per session in USD (exact pricing only)",
  },
];

/** Parses a budget value as typed by a person: `25`, `90s`, `5m`, `1.5h`, `500ms`, `$2.50`. */
export function parseBudgetValue(option: BudgetOption, text: string): number {
  const t = text.trim();
  if (option.kind === "count") {
    if (/^\d+$/.test(t) && Number(t) >= 1 && Number.isSafeInteger(Number(t))) return Number(t);
    throw new BonsaiError(
      "USAGE",
      `--${option.flag}: expected a whole number of at least 1, got '${text}'`,
    );
  }
  if (option.kind === "usd") {
    const m = /^\$?(\d+(?:\.\d+)?)$/.exec(t);
    if (m && Number(m[1]) > 0) return Number(m[1]);
    throw new BonsaiError(
      "USAGE",
      `--${option.flag}: expected an amount in USD like 2.50, got '${text}'`,
    );
  }
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(t);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m?.[2] ?? "s"] ?? 1000;
  const ms = m ? Math.round(Number(m[1]) * unit) : NaN;
  if (Number.isFinite(ms) && ms >= 1) return ms;
  throw new BonsaiError(
    "USAGE",
    `--${option.flag}: expected a duration like 90s, 5m, 1h or 500ms, got '${text}'`,
  );
}

/** Formats a limit for people (`5m`, `$2.50`, `25`). */
export function formatBudgetValue(option: BudgetOption, value: number): string {
  if (option.kind === "count") return String(value);
  if (option.kind === "usd") return `$${value.toFixed(2)}`;
  if (value % 3_600_000 === 0) return `${value / 3_600_000}h`;
  if (value % 60_000 === 0) return `${value / 60_000}m`;
  if (value % 1000 === 0) return `${value / 1000}s`;
  return `${value}ms`;
}

/** The limits of a run: saved presets (settings, B1, already checked) overridden by flags for this run. */
export function budgetLimits(
  saved: Partial<BudgetLimits>,
  flags: Readonly<Record<string, string | undefined>>,
): BudgetLimits {
  const out: Record<string, number> = { ...saved } as Record<string, number>;
  for (const option of BUDGET_OPTIONS) {
    const flag = flags[option.flag];
    if (flag !== undefined) out[option.field] = parseBudgetValue(option, flag);
  }
  return out as BudgetLimits;
}
