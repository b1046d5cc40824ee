// Numbers, money and times as people read them, in the browser's own locale and time zone.

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const dayOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** The browser's time zone (usage days are counted in it). */
export const timeZone = globalThis.bonsaiBoot.timeZone;

/** A whole number with grouping. */
export const int = (n) => integer.format(n ?? 0);

/** A large number shortly (1.2K). */
export const short = (n) => compact.format(n ?? 0);

/** Dollars: cents above a dollar, more digits below; a floor is marked "≥". */
export function usd(n, exact = true) {
  if (n === null || n === undefined) return "—";
  const digits = n >= 1 || n === 0 ? 2 : n >= 0.01 ? 4 : 6;
  const text = `$${n.toFixed(digits)}`;
  return exact ? text : `≥ ${text}`;
}

/** An ISO time in the browser's zone: the time alone if today, else date and time. */
export function when(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  const today = new Date();
  return d.toDateString() === today.toDateString() ? timeOnly.format(d) : dateTime.format(d);
}

/** An ISO time in full. */
export const full = (iso) => (iso ? dateTime.format(new Date(iso)) : "—");

/** A `YYYY-MM-DD` day in the locale's words. */
export const day = (date) => dayOnly.format(new Date(`${date}T12:00:00`));

/** Milliseconds as "340 ms" or "2.1 s". */
export function ms(n) {
  if (n === null || n === undefined) return "—";
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;
}

/** A share as a percentage. */
export const pct = (x) => `${(x * 100).toFixed(1)}%`;

/** The last part of a path (project names). */
export const base = (path) => (path ?? "").split("/").filter(Boolean).pop() ?? path;
