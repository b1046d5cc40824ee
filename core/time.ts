import { BonsaiError } from "./errors.ts";

// Calendar helpers over IANA time zones, without a date library: Intl gives the zone's
// offset at an instant, from which local dates and local midnights follow.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Throws a USAGE error unless `timeZone` is a zone this runtime knows. */
export function checkTimeZone(timeZone: string): string {
  try {
    formatter(timeZone);
    return timeZone;
  } catch {
    throw new BonsaiError(
      "USAGE",
      `Unknown time zone '${timeZone}' (use an IANA name such as 'Europe/Berlin' or 'UTC')`,
    );
  }
}

/** The process's own zone. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Wall-clock fields of an instant in a zone. */
export interface ZonedParts {
  readonly year: number;
  readonly month: number; // 1-12
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** 0 = Sunday. */
  readonly weekday: number;
}

/** The wall-clock fields of `ms` in `timeZone`. */
export function zonedParts(ms: number, timeZone: string): ZonedParts {
  const get: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== "literal") get[p.type] = Number(p.value);
  }
  const year = get.year!, month = get.month!, day = get.day!;
  return {
    year,
    month,
    day,
    hour: get.hour!,
    minute: get.minute!,
    second: get.second!,
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
  };
}

/** The zone's offset from UTC at `ms`, in milliseconds (east positive). */
export function zoneOffset(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (ms - (ms % 1000 + 1000) % 1000);
}

/** The instant of a local wall-clock time in a zone (the earlier one across a DST overlap). */
export function zonedTime(
  year: number,
  month: number,
  day: number,
  timeZone: string,
  hour = 0,
  minute = 0,
): number {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  let result = guess - zoneOffset(guess, timeZone);
  const corrected = guess - zoneOffset(result, timeZone);
  if (corrected !== result) result = Math.min(result, corrected);
  return result;
}

/** "YYYY-MM-DD" of `ms` in a zone. */
export function localDate(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  return `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
}

/**
 * Parses a time bound: `YYYY-MM-DD` (local midnight), an ISO date-time, or a span back from
 * now such as `12h`, `7d`, `2w`, `12m` (months), `1y`.
 */
export function parseTimeBound(text: string, now: number, timeZone: string): number {
  const t = text.trim();
  const span = /^(\d+)\s*([hdwmy])$/i.exec(t);
  if (span) {
    const n = Number(span[1]);
    const unit = span[2]!.toLowerCase();
    if (unit === "h") return now - n * 3_600_000;
    if (unit === "d") return now - n * 86_400_000;
    if (unit === "w") return now - n * 7 * 86_400_000;
    const p = zonedParts(now, timeZone);
    const months = unit === "m" ? n : n * 12;
    const total = p.year * 12 + (p.month - 1) - months;
    return zonedTime(Math.floor(total / 12), (total % 12) + 1, p.day, timeZone, p.hour, p.minute);
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (m >= 1 && m <= 12 && d >= 1 && d <= 31) return zonedTime(y, m, d, timeZone);
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new BonsaiError(
    "USAGE",
    `Cannot read time '${text}': use YYYY-MM-DD, an ISO date-time, or a span like 7d, 12h, 2w, 12m`,
  );
}
