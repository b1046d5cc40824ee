// Formatting of numbers, money and times for people. Scripts get raw values via --json.

/** 1234567 -> "1,234,567". */
export function formatInt(n: number): string {
  // By hand: the locale formatter loads ICU data, tens of milliseconds on the first call.
  const digits = String(Math.abs(Math.round(n)));
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ",");
  return Math.round(n) < 0 ? `-${grouped}` : grouped;
}

/** 1234567 -> "1.2M", 45210 -> "45.2k". */
export function formatCompact(n: number): string {
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  const units: [number, string][] = [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "k"]];
  for (const [size, unit] of units) {
    if (abs >= size) {
      const v = n / size;
      return `${v >= 100 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, "")}${unit}`;
    }
  }
  return String(n);
}

/** US dollars; a floor (unpriced turns present) shows as "≥ $1.23". */
export function formatUsd(usd: number, options: { floor?: boolean; ascii?: boolean } = {}): string {
  const digits = usd !== 0 && Math.abs(usd) < 0.01 ? 4 : 2;
  const text = `$${usd.toFixed(digits)}`;
  if (!options.floor) return text;
  return `${options.ascii ? ">=" : "≥"} ${text}`;
}

/** Local "YYYY-MM-DD HH:MM" in the given IANA zone (default: the process's zone). */
export function formatDateTime(ms: number, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", else the date. */
export function formatAge(ms: number, now: number, timeZone?: string): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 14) return `${days} d ago`;
  return formatDateTime(ms, timeZone).slice(0, 10);
}

/** 93_000 -> "1m 33s", 4_000_000 -> "1h 6m". */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** ISO 8601 UTC for JSON output. */
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
