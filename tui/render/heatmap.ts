import type { Heatmap } from "../../core/usage/dashboard.ts";
import { formatCompact } from "./format.ts";
import type { Style } from "./style.ts";

/** How cells are drawn: colour blocks, Unicode shades (NO_COLOR), or ASCII (non-UTF-8). */
export interface HeatmapLook {
  readonly style: Style;
  readonly ascii: boolean;
  /** Terminal columns to fit. */
  readonly width: number;
}

const SHADES = ["·", "░", "▒", "▓", "█"];
const ASCII = [".", ":", "+", "*", "#"];
// 256-colour greens, from empty to busiest (the GitHub palette's idea).
const GREENS = [238, 22, 28, 34, 40];
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const ORDER = [1, 2, 3, 4, 5, 6, 0]; // rows Monday first
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Level 0 (none) to 4 (busiest): quartiles of the non-zero values. */
function levels(values: number[]): (v: number) => number {
  const nonzero = values.filter((v) => v > 0).sort((a, b) => a - b);
  const q = (p: number) =>
    nonzero[Math.min(nonzero.length - 1, Math.floor(p * nonzero.length))] ?? 0;
  const cuts = [q(0.25), q(0.5), q(0.75)];
  return (v) => (v <= 0 ? 0 : v <= cuts[0]! ? 1 : v <= cuts[1]! ? 2 : v <= cuts[2]! ? 3 : 4);
}

function cell(level: number, width: number, look: HeatmapLook): string {
  if (look.style.enabled) {
    const ch = look.ascii ? "#" : "█";
    return look.style.fg256(GREENS[level]!, ch.repeat(width - (width > 1 ? 1 : 0))) +
      (width > 1 ? " " : "");
  }
  const ch = (look.ascii ? ASCII : SHADES)[level]!;
  return ch.repeat(width - (width > 1 ? 1 : 0)) + (width > 1 ? " " : "");
}

function legend(values: number[], look: HeatmapLook, unit: string): string {
  const nonzero = values.filter((v) => v > 0).sort((a, b) => a - b);
  const q = (p: number) =>
    nonzero[Math.min(nonzero.length - 1, Math.floor(p * nonzero.length))] ?? 0;
  const bounds = [0, q(0.25), q(0.5), q(0.75), nonzero[nonzero.length - 1] ?? 0];
  const parts = [0, 1, 2, 3, 4].map((lvl) => {
    const label = lvl === 0 ? "none" : `≤${formatCompact(bounds[lvl]!)}`;
    return `${cell(lvl, 1, look)} ${look.ascii ? label.replace("≤", "<=") : label}`;
  });
  return `  ${look.style.dim(`${unit}:`)} ${parts.join("  ")}`;
}

/** The weekday x hour grid (rows Monday..Sunday, columns 0..23 local time). */
export function renderWeekdayHour(
  heatmap: Heatmap,
  look: HeatmapLook,
  unit: "tokens" | "turns" = "tokens",
): string {
  const grid = heatmap.weekdayHour[unit];
  const all = grid.flat();
  const level = levels(all);
  const w = look.width >= 4 + 24 * 3 ? 3 : look.width >= 4 + 24 * 2 ? 2 : 1;
  const hours = Array.from(
    { length: 24 },
    (
      _,
      h,
    ) => (w >= 3
      ? String(h).padStart(2, "0") + " "
      : w === 2
      ? (h % 2 === 0 ? String(h).padStart(2, "0") : "  ")
      : (h % 6 === 0 ? String(h / 6 * 6).slice(-1) : " ")),
  );
  const lines = [`    ${look.style.dim(hours.join("").trimEnd())}`];
  for (const d of ORDER) {
    lines.push(
      `${look.style.dim(DAYS[d]!)} ${
        grid[d]!.map((v) => cell(level(v), w, look)).join("").trimEnd()
      }`,
    );
  }
  lines.push(legend(all, look, unit));
  return lines.join("\n") + "\n";
}

/** The year calendar: 53 weeks (or as many as fit), Monday to Sunday, month names above. */
export function renderCalendar(heatmap: Heatmap, look: HeatmapLook): string {
  const weeksAll = heatmap.calendar.weeks;
  const w = look.width >= 4 + 53 * 2 ? 2 : 1;
  const fit = Math.max(4, Math.min(weeksAll.length, Math.floor((look.width - 4) / w)));
  const weeks = weeksAll.slice(weeksAll.length - fit);
  const values = weeks.flat().map((c) => c?.tokens ?? 0);
  const level = levels(values);
  let months = "";
  let lastMonth = -1;
  for (const week of weeks) {
    const first = week.find((c) => c !== null);
    const month = first ? Number(first.date.slice(5, 7)) - 1 : lastMonth;
    if (month !== lastMonth && months.length <= weeks.indexOf(week) * w) {
      months = months.padEnd(weeks.indexOf(week) * w) + MONTHS[month]!;
    }
    lastMonth = month;
  }
  const lines = [`    ${look.style.dim(months.slice(0, weeks.length * w))}`];
  for (const d of ORDER) {
    const label = d === 1 || d === 3 || d === 5 ? DAYS[d]! : "   ";
    const row = weeks.map((week) => {
      const c = week[d];
      return c === null || c === undefined ? " ".repeat(w) : cell(level(c.tokens), w, look);
    }).join("");
    lines.push(`${look.style.dim(label)} ${row.trimEnd()}`);
  }
  lines.push(legend(values, look, "tokens per day"));
  return lines.join("\n") + "\n";
}
