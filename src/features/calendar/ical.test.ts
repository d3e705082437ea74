// The iCalendar writer (RFC 5545): escaping, folding at 75 octets, UTC instants, CRLF.
import { describe, expect, test } from "bun:test";
import { escapeText, foldLine, icsCalendar, utcDateTime, type IcsEvent } from "./ical";

const octets = (s: string) => new TextEncoder().encode(s).length;
/** Unfolds (§3.1): a CRLF followed by one space or tab disappears. */
const unfold = (s: string) => s.replace(/\r\n[ \t]/g, "");

describe("escapeText", () => {
  test("backslash, semicolon and comma are escaped; every line break becomes \\n", () => {
    expect(escapeText("a,b;c\\d")).toBe("a\\,b\\;c\\\\d");
    expect(escapeText("one\r\ntwo\nthree\rfour")).toBe("one\\ntwo\\nthree\\nfour");
    expect(escapeText("colon: stays")).toBe("colon: stays");
    // The backslash is escaped first, so an escape is never doubled.
    expect(escapeText("\\,")).toBe("\\\\\\,");
  });
});

describe("utcDateTime", () => {
  test("form 2, UTC with Z, no separators or fractions", () => {
    expect(utcDateTime(Date.UTC(1997, 6, 14, 17, 30, 0, 999))).toBe("19970714T173000Z");
    expect(utcDateTime(Date.UTC(2026, 0, 1))).toBe("20260101T000000Z");
  });
});

describe("foldLine", () => {
  test("short lines are left alone", () => {
    const line = "SUMMARY:" + "x".repeat(67);
    expect(octets(line)).toBe(75);
    expect(foldLine(line)).toBe(line);
  });

  test("long ASCII lines: 75 octets, then continuation lines of a space and 74", () => {
    const line = "DESCRIPTION:" + "abcdefghij".repeat(30);
    const folded = foldLine(line);
    const parts = folded.split("\r\n");
    expect(parts.length).toBeGreaterThan(1);
    expect(octets(parts[0]!)).toBe(75);
    for (const p of parts.slice(1)) {
      expect(p.startsWith(" ")).toBe(true);
      expect(octets(p)).toBeLessThanOrEqual(75);
    }
    expect(unfold(folded)).toBe(line);
  });

  test("multi-octet characters are never split, whatever their position", () => {
    for (let pad = 0; pad < 4; pad++) {
      const line = "SUMMARY:" + "a".repeat(pad) + "é€😀日本語".repeat(20);
      const folded = foldLine(line);
      for (const p of folded.split("\r\n")) {
        expect(octets(p)).toBeLessThanOrEqual(75);
        // Each part is valid UTF-8 on its own: it round-trips through the encoder.
        expect(new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(p))).toBe(p);
        expect(p.includes("\uFFFD")).toBe(false);
      }
      expect(unfold(folded)).toBe(line);
    }
  });
});

describe("icsCalendar", () => {
  const event: IcsEvent = {
    uid: "0190a4f2-0000-7000-8000-000000000001@colony.example",
    stamp: Date.UTC(2026, 0, 2, 8),
    start: Date.UTC(2026, 1, 1, 18),
    end: Date.UTC(2026, 1, 1, 20),
    summary: "Meetup; agents, humans",
    description: "Line one\nLine two, with a comma",
    location: "Room 1\\B",
    url: "https://colony.example/api/v1/events/0190a4f2-0000-7000-8000-000000000001",
    categories: ["General, mostly"],
    created: Date.UTC(2026, 0, 1, 12),
    lastModified: Date.UTC(2026, 0, 2, 8),
    sequence: 2,
  };

  test("a VCALENDAR of VEVENTs, CRLF after every line, nothing longer than 75 octets", () => {
    const body = icsCalendar({ name: "Colony events", description: "All of them", prodId: "-//Colony//Colony 0.1.0//EN", refreshMinutes: 60, events: [event, { ...event, uid: "second@x", end: null, description: null, location: null, categories: [], url: null }] });
    expect(body.endsWith("\r\n")).toBe(true);
    expect(body.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    for (const line of body.split("\r\n")) expect(octets(line)).toBeLessThanOrEqual(75);
    const lines = unfold(body).split("\r\n");
    expect(lines.slice(0, 4)).toEqual(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Colony//Colony 0.1.0//EN", "CALSCALE:GREGORIAN"]);
    expect(lines).toContain("X-WR-CALNAME:Colony events");
    expect(lines).toContain("REFRESH-INTERVAL;VALUE=DURATION:PT60M");
    const first = lines.slice(lines.indexOf("BEGIN:VEVENT"), lines.indexOf("END:VEVENT") + 1);
    expect(first).toEqual([
      "BEGIN:VEVENT",
      "UID:0190a4f2-0000-7000-8000-000000000001@colony.example",
      "DTSTAMP:20260102T080000Z",
      "DTSTART:20260201T180000Z",
      "DTEND:20260201T200000Z",
      "SUMMARY:Meetup\\; agents\\, humans",
      "DESCRIPTION:Line one\\nLine two\\, with a comma",
      "LOCATION:Room 1\\\\B",
      "URL:https://colony.example/api/v1/events/0190a4f2-0000-7000-8000-000000000001",
      "CATEGORIES:General\\, mostly",
      "CREATED:20260101T120000Z",
      "LAST-MODIFIED:20260102T080000Z",
      "SEQUENCE:2",
      "STATUS:CONFIRMED",
      "END:VEVENT",
    ]);
    // The open-ended one has no DTEND and none of the empty properties.
    const second = lines.slice(lines.lastIndexOf("BEGIN:VEVENT"), lines.lastIndexOf("END:VEVENT") + 1);
    expect(second.some((l) => /^(DTEND|DESCRIPTION|LOCATION|URL|CATEGORIES):/.test(l))).toBe(false);
    expect(lines.at(-2)).toBe("END:VCALENDAR");
    expect(lines.filter((l) => l === "BEGIN:VEVENT")).toHaveLength(2);
  });

  test("an empty calendar is still a valid object", () => {
    const body = icsCalendar({ name: "Empty", prodId: "-//x//y//EN", refreshMinutes: 30, events: [] });
    expect(unfold(body).split("\r\n").filter(Boolean)).toEqual([
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//x//y//EN",
      "CALSCALE:GREGORIAN",
      "NAME:Empty",
      "X-WR-CALNAME:Empty",
      "REFRESH-INTERVAL;VALUE=DURATION:PT30M",
      "X-PUBLISHED-TTL:PT30M",
      "END:VCALENDAR",
    ]);
  });
});
