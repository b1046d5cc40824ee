import type { Heatmap } from "../../core/usage/dashboard.ts";
import { formatCompact } from "./format.ts";
import { displayWidth } from "./width.ts";
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

/** Shading of a set of values: level 0 (none) to 4 (busiest), with each level's upper bound. */
interface Scale {
  level(v: number): number;
  /** The levels in use, each with the largest value it shows. */
  readonly bounds: readonly { level: number; upTo: number }[];
}

/**
 * Quartiles of the non-zero values; the largest value is always the darkest level, and a level
 * whose quartile repeats the one below (few distinct values) is left out.
 */
export function scaleOf(values: readonly number[]): Scale {
  const nonzero = values.filter((v) => v > 0).sort((a, b) => a - b);
  const max = nonzero[nonzero.length - 1] ?? 0;
  const q = (p: number) => nonzero[Math.floor(p * (nonzero.length - 1))] ?? 0;
  const cuts: { level: number; upTo: number }[] = [];
  for (const [level, p] of [[1, 0.25], [2, 0.5], [3, 0.75]] as const) {
    const upTo = q(p);
    if (upTo > 0 && upTo < max && upTo > (cuts[cuts.length - 1]?.upTo ?? 0)) {
      cuts.push({ level, upTo });
    }
  }
  const bounds = max > 0 ? [...cuts, { level: 4, upTo: max }] : [];
  return {
    bounds,
    level: (v) => (v <= 0 ? 0 : (bounds.find((b) => v <= b.upTo) ?? { level: 4 }).level),
  };
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

function legend(scale: Scale, look: HeatmapLook, unit: string): string {
  const le = look.ascii ? "<=" : "≤";
  const used = [
    { level: 0, text: "none" },
    ...scale.bounds.map((b) => ({
      level: b.level,
      text: `${le}${formatCompact(b.upTo)}`,
    })),
  ];
  const parts = used.map((u) => `${cell(u.level, 1, look)} ${u.text}`);
  // Widest form first; narrower terminals get the scale without the numbers.
  const forms = [
    `  ${look.style.dim(`${unit}:`)} ${parts.join("  ")}`,
    `  ${parts.join(" ")}`,
    `  less ${used.map((u) => cell(u.level, 1, look)).join("")} more`,
  ];
  return forms.find((f) => displayWidth(f) <= look.width) ?? forms[forms.length - 1]!;
}

/** The weekday x hour grid (rows Monday..Sunday, columns 0..23 local time). */
export function renderWeekdayHour(
  heatmap: Heatmap,
  look: HeatmapLook,
  unit: "tokens" | "turns" = "tokens",
): string {
  const grid = heatmap.weekdayHour[unit];
  const all = grid.flat();
  const scale = scaleOf(all);
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
        grid[d]!.map((v) => cell(scale.level(v), w, look)).join("").trimEnd()
      }`,
    );
  }
  lines.push(legend(scale, look, unit));
  return lines.join("\n") + "\n";
}

/** The year calendar: 53 weeks (or as many as fit), Monday to Sunday, month names above. */
export function renderCalendar(heatmap: Heatmap, look: HeatmapLook): string {
  const weeksAll = heatmap.calendar.weeks;
  const w = look.width >= 4 + 53 * 2 ? 2 : 1;
  const fit = Math.max(4, Math.min(weeksAll.length, Math.floor((look.width - 4) / w)));
  const weeks = weeksAll.slice(weeksAll.length - fit);
  const values = weeks.flat().map((c) => c?.tokens ?? 0);
  const scale = scaleOf(values);
  // A month's name sits above its first week; a first partial month too short for its name
  // gives way to the next (as GitHub's calendar does).
  const starts: { at: number; month: number }[] = [];
  weeks.forEach((week, i) => {
    const first = week.find((c) => c !== null);
    const month = first ? Number(first.date.slice(5, 7)) - 1 : -1;
    if (month >= 0 && month !== starts[starts.length - 1]?.month) starts.push({ at: i * w, month });
  });
  if (starts.length > 1 && starts[1]!.at - starts[0]!.at < 4) starts.shift();
  let months = "";
  for (const s of starts) {
    if (months.length < s.at || months.length === 0) {
      months = months.padEnd(s.at) + MONTHS[s.month]!;
    }
  }
  const lines = [`    ${look.style.dim(months.slice(0, weeks.length * w))}`];
  for (const d of ORDER) {
    const label = d === 1 || d === 3 || d === 5 ? DAYS[d]! : "   ";
    const row = weeks.map((week) => {
      const c = week[d];
      return c === null || c === undefined ? " ".repeat(w) : cell(scale.level(c.tokens), w, look);
    }).join("");
    lines.push(`${look.style.dim(label)} ${row.trimEnd()}`);
  }
  lines.push(legend(scale, look, "tokens per day"));
  return lines.join("\n") + "\n";
}
