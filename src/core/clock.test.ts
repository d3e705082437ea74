import { describe, expect, test } from "bun:test";
import { DAY, HOUR, MINUTE, TestClock, iso, parseInstant, systemClock } from "./clock";

describe("TestClock", () => {
  test("starts at a fixed instant and only moves when told to", () => {
    const clock = new TestClock();
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1, 12, 0, 0));
    expect(clock.now()).toBe(clock.now());
  });

  test("advance, advanceMinutes and set", () => {
    const clock = new TestClock(1_000);
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
    clock.advanceMinutes(2);
    expect(clock.now()).toBe(1_500 + 2 * MINUTE);
    clock.set(42);
    expect(clock.now()).toBe(42);
    clock.set(new Date("2030-05-06T07:08:09.010Z"));
    expect(clock.now()).toBe(Date.UTC(2030, 4, 6, 7, 8, 9, 10));
  });

  test("the system clock follows the wall clock", () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  test("duration constants", () => {
    expect(MINUTE).toBe(60_000);
    expect(HOUR).toBe(3_600_000);
    expect(DAY).toBe(86_400_000);
  });
});

describe("iso", () => {
  test("renders UTC with Z and milliseconds", () => {
    expect(iso(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe("2026-01-02T03:04:05.006Z");
    expect(iso(0)).toBe("1970-01-01T00:00:00.000Z");
  });

  test("passes null and undefined through as null", () => {
    expect(iso(null)).toBeNull();
    expect(iso(undefined)).toBeNull();
  });

  test("round-trips through parseInstant", () => {
    const t = Date.UTC(2026, 6, 15, 23, 59, 59, 999);
    expect(parseInstant(iso(t))).toBe(t);
  });
});

describe("parseInstant", () => {
  const U = Date.UTC;
  test.each([
    ["2026-01-01T12:00:00Z", U(2026, 0, 1, 12)],
    ["2026-01-01T12:00:00z", U(2026, 0, 1, 12)],
    ["2026-01-01t12:00:00Z", U(2026, 0, 1, 12)],
    ["2026-01-01T12:00:00.250Z", U(2026, 0, 1, 12, 0, 0, 250)],
    ["2026-01-01T12:00:00.123456Z", U(2026, 0, 1, 12, 0, 0, 123)],
    ["2026-01-01T12:00:00.9999Z", U(2026, 0, 1, 12, 0, 0, 999)],
    // No zone: read as UTC.
    ["2026-01-01T12:00:00", U(2026, 0, 1, 12)],
    ["2026-01-01T12:00", U(2026, 0, 1, 12)],
    ["2026-01-01 12:00:00", U(2026, 0, 1, 12)],
    // A bare date is midnight UTC.
    ["2026-01-01", U(2026, 0, 1)],
    ["2024-02-29", U(2024, 1, 29)],
    // Explicit offsets.
    ["2026-01-01T12:00:00+02:00", U(2026, 0, 1, 10)],
    ["2026-01-01T12:00:00+0200", U(2026, 0, 1, 10)],
    ["2026-01-01T12:00:00-05:30", U(2026, 0, 1, 17, 30)],
    ["2026-01-01T12:00:00+14:00", U(2025, 11, 31, 22)],
    ["2026-01-01T00:00:00-00:00", U(2026, 0, 1)],
    // Surrounding whitespace is ignored.
    ["  2026-01-01  ", U(2026, 0, 1)],
  ] as const)("%p -> %p", (text, expected) => {
    expect(parseInstant(text)).toBe(expected);
  });

  test("years below 100 are not shifted into the 1900s", () => {
    expect(iso(parseInstant("0099-01-01"))).toBe("0099-01-01T00:00:00.000Z");
    expect(iso(parseInstant("0000-01-01T00:00:00Z"))).toBe("0000-01-01T00:00:00.000Z");
  });

  test.each([
    // A `+` in a query string arrives as a space: without a zone sign it is not a timestamp.
    "2026-01-01T12:00:00 00:00",
    "2026-01-01 12:00:00 02:00",
    "",
    "   ",
    "now",
    "1700000000",
    "1700000000000",
    "2026",
    "2026-01",
    "2026-1-1",
    "2026-01-01T12",
    "2026-01-01Z",
    "2026-01-01T12:00:00+02",
    "2026-01-01T12:00:00+25:00",
    "2026-01-01T12:00:00+02:60",
    "2026-01-01T12:00:00 Z",
    "+002026-01-01T00:00:00Z",
    "2026-01-01T12:00:00ZZ",
    // Days and times that do not exist.
    "2026-02-29",
    "2026-02-30T10:00:00Z",
    "2026-04-31",
    "2026-13-01",
    "2026-00-10",
    "2026-01-00",
    "2026-01-01T24:00:00Z",
    "2026-01-01T23:60:00Z",
    "2026-01-01T23:59:60Z",
  ])("rejects %p", (text) => {
    expect(parseInstant(text)).toBeNull();
  });
});
