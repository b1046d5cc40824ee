import assert from "node:assert/strict";
import { checkTimeZone, ZoneCalendar, zoneOffset } from "../../core/time.ts";

/** The offset as the time zone database gives it. */
function intlOffset(ms: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    }).formatToParts(ms).map((p) => [p.type, Number(p.value)]),
  );
  const local = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return local - (ms - (ms % 1000));
}

Deno.test("zoneOffset(): fixed zones need no database and agree with it", () => {
  const at = Date.UTC(2026, 5, 1, 12, 34, 56);
  for (const zone of ["UTC", "Etc/UTC", "GMT", "Etc/GMT+5", "Etc/GMT-14", "Etc/GMT-0", "Zulu"]) {
    assert.equal(zoneOffset(at, zone), intlOffset(at, zone), zone);
    assert.equal(checkTimeZone(zone), zone);
  }
  for (const zone of ["America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe"]) {
    for (const month of [0, 3, 6, 9]) {
      const t = Date.UTC(2026, month, 15, 3);
      assert.equal(zoneOffset(t, zone), intlOffset(t, zone), `${zone} ${month}`);
    }
  }
  assert.throws(() => checkTimeZone("Etc/GMT+99"), /Unknown time zone/);
});

Deno.test("ZoneCalendar.segments(): every offset change of a year, to the quarter hour", () => {
  const from = Date.UTC(2026, 0, 1);
  const to = Date.UTC(2027, 0, 1);
  const ny = new ZoneCalendar("America/New_York").segments(from, to);
  assert.deepEqual(ny, [
    { from, offset: -5 * 3_600_000 },
    { from: Date.UTC(2026, 2, 8, 7), offset: -4 * 3_600_000 },
    { from: Date.UTC(2026, 10, 1, 6), offset: -5 * 3_600_000 },
  ]);
  // Lord Howe moves by half an hour.
  const lh = new ZoneCalendar("Australia/Lord_Howe").segments(from, to);
  assert.equal(lh.length, 3);
  assert.deepEqual(lh.map((s) => s.offset / 60_000), [660, 630, 660]);
  assert.deepEqual(new ZoneCalendar("UTC").segments(from, to), [{ from, offset: 0 }]);
});
