// The only place that reads the wall clock. Everything else asks a Clock, so tests can move time.

export interface Clock {
  /** Current instant in epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class TestClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 0, 1, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  set(ms: number | Date): void {
    this.t = typeof ms === "number" ? ms : ms.getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
  advanceMinutes(m: number): void {
    this.t += m * 60_000;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** ISO 8601 UTC with `Z`, the wire format of every instant. */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}

const INSTANT_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses a query or body timestamp (ISO 8601). A value without a zone is read as UTC; a bare date
 * is midnight UTC. Returns null when the text is not a timestamp or names a day or time that does
 * not exist (2025-02-29, 24:00, 12:60). A `+` that a query string turned into a space
 * ("12:00:00 00:00") is not a zone and is rejected.
 */
export function parseInstant(text: string): number | null {
  const m = INSTANT_RE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, hh = "00", mi = "00", ss = "00", frac = "", zone = "Z"] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return null;
  let offsetMin = 0;
  if (zone.toUpperCase() !== "Z") {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(-2));
    if (oh > 23 || om > 59) return null;
    offsetMin = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  return utc(year, month - 1, day, Number(hh), Number(mi), Number(ss), ms) - offsetMin * MINUTE;
}

/** Date.UTC without its mapping of years 0-99 to 1900-1999. */
function utc(year: number, month: number, day: number, h = 0, m = 0, s = 0, ms = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, m, s, ms);
  return d.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(utc(year, month, 0)).getUTCDate();
}
