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

const UTC_NAMES = new Set([
  "UTC",
  "Etc/UTC",
  "UCT",
  "Etc/UCT",
  "GMT",
  "Etc/GMT",
  "GMT0",
  "Etc/GMT0",
  "Etc/GMT+0",
  "Etc/GMT-0",
  "Greenwich",
  "Etc/Greenwich",
  "Universal",
  "Etc/Universal",
  "Zulu",
  "Etc/Zulu",
]);

/**
 * The offset (ms east of UTC) of a zone that never changes it — UTC by its names and
 * Etc/GMT±N (whose sign is POSIX's: Etc/GMT+5 is five hours west) — or null. Such zones need
 * no time zone database, whose first use costs tens of milliseconds.
 */
function fixedOffset(timeZone: string): number | null {
  if (UTC_NAMES.has(timeZone)) return 0;
  const m = /^Etc\/GMT([+-])(\d{1,2})$/.exec(timeZone);
  if (!m) return null;
  const hours = Number(m[2]);
  if (hours > 14) return null;
  return (m[1] === "+" ? -1 : 1) * hours * 3_600_000;
}

/** Throws a USAGE error unless `timeZone` is a zone this runtime knows. */
export function checkTimeZone(timeZone: string): string {
  if (fixedOffset(timeZone) !== null) return timeZone;
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
  const fixed = fixedOffset(timeZone);
  if (fixed !== null) return fixed;
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

/** An `--until` bound: a plain date includes that whole day. */
export function parseUntilBound(text: string, now: number, timeZone: string): number {
  return parseTimeBound(text, now, timeZone) +
    (/^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? 86_400_000 : 0);
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

/** Local calendar fields of an instant. */
export interface LocalFields {
  /** "YYYY-MM-DD" */
  readonly date: string;
  readonly hour: number;
  /** 0 = Sunday. */
  readonly weekday: number;
}

const DAY_MS = 86_400_000;
const QUARTER_MS = 900_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * Fast local dates and hours for many instants in one zone: the zone's offset is looked up
 * once per UTC day (and per hour only on days whose offset changes), not per instant.
 */
export class ZoneCalendar {
  readonly timeZone: string;
  readonly #dayOffsets = new Map<number, number | null>();

  constructor(timeZone: string) {
    this.timeZone = checkTimeZone(timeZone);
  }

  /** The zone's offset at `ms`, ms east of UTC. */
  offset(ms: number): number {
    const day = Math.floor(ms / DAY_MS);
    let steady = this.#dayOffsets.get(day);
    if (steady === undefined) {
      const start = zoneOffset(day * DAY_MS, this.timeZone);
      const end = zoneOffset((day + 1) * DAY_MS - 1, this.timeZone);
      steady = start === end ? start : null; // null: a transition happens this UTC day
      this.#dayOffsets.set(day, steady);
    }
    return steady ?? zoneOffset(ms, this.timeZone);
  }

  /**
   * The zone's offsets over [from, to]: each segment's offset holds from its `from` until the
   * next segment's. The zone is probed weekly and each change is located by bisection to
   * the quarter hour (transitions happen on one, and months apart).
   */
  segments(from: number, to: number): { from: number; offset: number }[] {
    const probe = (ms: number) => zoneOffset(ms, this.timeZone);
    const out = [{ from, offset: probe(from) }];
    for (let lo = from; lo < to;) {
      const hi = Math.min(to, lo + WEEK_MS);
      const at = probe(hi);
      if (at !== out[out.length - 1]!.offset) {
        // The first quarter hour in (lo, hi] with the new offset.
        let a = Math.floor(lo / QUARTER_MS);
        let b = Math.ceil(hi / QUARTER_MS);
        while (b - a > 1) {
          const mid = Math.floor((a + b) / 2);
          if (probe(mid * QUARTER_MS) === at) b = mid;
          else a = mid;
        }
        out.push({ from: Math.min(hi, b * QUARTER_MS), offset: at });
      }
      lo = hi;
    }
    return out;
  }

  /** Local date, hour and weekday of `ms`. */
  fields(ms: number): LocalFields {
    const local = new Date(ms + this.offset(ms));
    const y = local.getUTCFullYear();
    const m = local.getUTCMonth() + 1;
    const d = local.getUTCDate();
    return {
      date: `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`,
      hour: local.getUTCHours(),
      weekday: local.getUTCDay(),
    };
  }

  /** The instant local midnight starts the given "YYYY-MM-DD". */
  midnight(date: string): number {
    const [y, m, d] = date.split("-").map(Number) as [number, number, number];
    return zonedTime(y, m, d, this.timeZone);
  }
}

/** "YYYY-MM-DD" plus `days` (calendar arithmetic, no zone). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Weekday of "YYYY-MM-DD", 0 = Sunday. */
export function weekdayOf(date: string): number {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}
