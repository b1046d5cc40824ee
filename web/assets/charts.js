// Hand-drawn SVG charts for the usage page. Each one scales with its box (viewBox), has a
// title for assistive technology and a <title> on every mark; the numbers are also in the
// table under each chart.
import { svg } from "./dom.js";
import { day, int, short, usd } from "./format.js";

const LEVELS = 5;

/** The colour level (0–4) of a value against the largest. */
function level(value, max) {
  if (!value || !max) return 0;
  return Math.min(LEVELS - 1, 1 + Math.floor((value / max) * (LEVELS - 1) * 0.999));
}

/**
 * The calendar of the period: a column per week (Sunday first), a cell per day of the
 * period (days outside it, before `from` or after the end, are not drawn), shaded by tokens.
 */
export function calendar(weeks, label, from = "") {
  weeks = weeks.map((week) => week.map((c) => (c && c.date >= from ? c : null)))
    .filter((week) => week.some(Boolean));
  const size = 12;
  const gap = 3;
  const left = 28;
  const top = 16;
  const max = Math.max(0, ...weeks.flat().filter(Boolean).map((c) => c.tokens));
  const width = left + weeks.length * (size + gap);
  const height = top + 7 * (size + gap);
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: "chart calendar",
    role: "img",
    "aria-label": label,
  });
  ["Mon", "Wed", "Fri"].forEach((name, n) => {
    root.appendChild(
      svg("text", { x: 0, y: top + (1 + 2 * n) * (size + gap) + size - 2, class: "axis" }, name),
    );
  });
  let lastMonth = "";
  weeks.forEach((week, w) => {
    const x = left + w * (size + gap);
    const first = week.find(Boolean);
    const month = first?.date.slice(0, 7);
    if (month && month !== lastMonth && first.date.slice(8) <= "07") {
      const name = new Date(`${first.date}T12:00:00`).toLocaleString(undefined, {
        month: "short",
      });
      root.appendChild(svg("text", { x, y: 10, class: "axis" }, name));
    }
    if (month) lastMonth = month;
    week.forEach((cell, d) => {
      if (!cell) return;
      root.appendChild(
        svg(
          "rect",
          {
            x,
            y: top + d * (size + gap),
            width: size,
            height: size,
            rx: 2,
            class: `cell l${level(cell.tokens, max)}`,
            "data-date": cell.date,
            "data-tokens": cell.tokens,
          },
          svg("title", {}, `${day(cell.date)}: ${int(cell.tokens)} tokens, ${cell.turns} turns`),
        ),
      );
    });
  });
  return root;
}

/** The weekday × hour heatmap of tokens. */
export function weekHours(tokens, weekdays, label) {
  const size = 14;
  const gap = 2;
  const left = 30;
  const top = 14;
  const max = Math.max(0, ...tokens.flat());
  const root = svg("svg", {
    viewBox: `0 0 ${left + 24 * (size + gap)} ${top + 7 * (size + gap)}`,
    width: left + 24 * (size + gap),
    height: top + 7 * (size + gap),
    class: "chart hours",
    role: "img",
    "aria-label": label,
  });
  for (let hour = 0; hour < 24; hour += 3) {
    root.appendChild(svg("text", { x: left + hour * (size + gap), y: 10, class: "axis" }, hour));
  }
  tokens.forEach((row, d) => {
    root.appendChild(
      svg("text", { x: 0, y: top + d * (size + gap) + size - 3, class: "axis" }, weekdays[d]),
    );
    row.forEach((value, hour) => {
      root.appendChild(
        svg(
          "rect",
          {
            x: left + hour * (size + gap),
            y: top + d * (size + gap),
            width: size,
            height: size,
            rx: 2,
            class: `cell l${level(value, max)}`,
          },
          svg("title", {}, `${weekdays[d]} ${hour}:00: ${int(value)} tokens`),
        ),
      );
    });
  });
  return root;
}

/**
 * Stacked bars, one per item: `series` names the stacked keys and their CSS classes;
 * `format` writes a value for the axis and titles.
 */
export function bars(items, { series, label, key = "date", format = short, floor }) {
  const width = 720;
  const height = 180;
  const left = 48;
  const bottom = 20;
  const totals = items.map((it) => series.reduce((s, k) => s + (it[k.key] ?? 0), 0));
  const max = Math.max(0, ...totals) || 1;
  const step = (width - left) / Math.max(1, items.length);
  const bar = Math.max(1, step * 0.8);
  const scale = (height - bottom - 8) / max;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "chart bars",
    role: "img",
    "aria-label": label,
  });
  for (const f of [0, 0.5, 1]) {
    const y = height - bottom - f * max * scale;
    root.appendChild(svg("line", { x1: left, x2: width, y1: y, y2: y, class: "grid" }));
    root.appendChild(svg("text", { x: 0, y: y + 4, class: "axis" }, format(f * max)));
  }
  items.forEach((it, n) => {
    let y = height - bottom;
    const x = left + n * step;
    for (const s of series) {
      const v = it[s.key] ?? 0;
      if (!v) continue;
      const hgt = v * scale;
      y -= hgt;
      root.appendChild(
        svg(
          "rect",
          { x, y, width: bar, height: hgt, class: `${s.class}${floor?.(it) ? " floor" : ""}` },
          svg("title", {}, `${it[key]}: ${s.label} ${format(v)}${floor?.(it) ? " (floor)" : ""}`),
        ),
      );
    }
  });
  if (items.length) {
    root.appendChild(svg("text", { x: left, y: height - 4, class: "axis" }, items[0][key]));
    root.appendChild(
      svg(
        "text",
        { x: width, y: height - 4, class: "axis", "text-anchor": "end" },
        items.at(-1)[key],
      ),
    );
  }
  return root;
}

/** Horizontal share bars (model shares). */
export function shares(rows, label) {
  const width = 720;
  const row = 22;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${Math.max(1, rows.length) * row}`,
    class: "chart shares",
    role: "img",
    "aria-label": label,
  });
  rows.forEach((r, n) => {
    const w = Math.max(1, r.share * (width - 260));
    root.appendChild(
      svg("text", { x: 0, y: n * row + 15, class: "axis" }, r.label.slice(0, 30)),
    );
    root.appendChild(
      svg(
        "rect",
        { x: 200, y: n * row + 4, width: w, height: row - 8, rx: 3, class: `s${n % 6}` },
        svg("title", {}, `${r.label}: ${(r.share * 100).toFixed(1)}%`),
      ),
    );
    root.appendChild(
      svg("text", { x: 206 + w, y: n * row + 15, class: "axis" }, `${(r.share * 100).toFixed(1)}%`),
    );
  });
  return root;
}

/** The legend of a stacked chart. */
export function legend(series) {
  const ul = document.createElement("ul");
  ul.className = "legend";
  for (const s of series) {
    const li = document.createElement("li");
    const swatch = svg("svg", { width: 10, height: 10, "aria-hidden": "true" });
    swatch.appendChild(svg("rect", { width: 10, height: 10, class: s.class }));
    li.append(swatch, ` ${s.label}`);
    ul.appendChild(li);
  }
  return ul;
}

export { usd };
