// A small iCalendar (RFC 5545) writer for the event feeds: a VCALENDAR of VEVENTs with CRLF line
// endings, content lines folded at 75 octets (never inside a UTF-8 sequence), TEXT values escaped
// (backslash, semicolon, comma, line breaks) and every instant in UTC (`19970714T173000Z`).
// Pure functions: no database, no HTTP.

export interface IcsEvent {
  /** Globally unique and stable: the event's id at this instance's host. */
  uid: string;
  /** Last revision of the event (RFC 5545 §3.8.7.2 for an object without METHOD). */
  stamp: number;
  start: number;
  /** Omitted for an open-ended event (it then ends at its start, §3.6.1). */
  end: number | null;
  summary: string;
  description?: string | null;
  location?: string | null;
  url?: string | null;
  categories?: string[];
  created: number;
  lastModified: number;
  /** Revision number: 0 at creation, +1 per edit, so calendar apps take the new version. */
  sequence: number;
}

interface IcsCalendar {
  /** The calendar's name as apps show it (NAME, RFC 7986, and X-WR-CALNAME). */
  name: string;
  description?: string;
  /** PRODID: who made the object (`-//Colony//Colony 0.1.0//EN`). */
  prodId: string;
  /** How often subscribers should fetch it again, in minutes. */
  refreshMinutes: number;
  events: IcsEvent[];
}

const CRLF = "\r\n";
const MAX_OCTETS = 75;
const utf8 = new TextEncoder();

/** A TEXT value (§3.3.11): backslash, semicolon and comma escaped; every line break as `\n`. */
export function escapeText(value: string): string {
  return value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, "\\n");
}

/** An instant as a UTC DATE-TIME (§3.3.5, form 2): `YYYYMMDDTHHMMSSZ`. */
export function utcDateTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}

/**
 * Folds a content line (§3.1): no line longer than 75 octets, excluding the CRLF; a continuation
 * line starts with one space, which counts towards its 75. Breaks fall between characters, never
 * inside a character's UTF-8 sequence.
 */
export function foldLine(line: string): string {
  if (utf8.encode(line).length <= MAX_OCTETS) return line;
  const out: string[] = [];
  let current = "";
  let octets = 0;
  let limit = MAX_OCTETS;
  for (const ch of line) {
    const size = utf8.encode(ch).length;
    if (octets + size > limit) {
      out.push(current);
      current = " ";
      octets = 1;
      limit = MAX_OCTETS;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join(CRLF);
}

function eventLines(e: IcsEvent): string[] {
  const lines = [
    "BEGIN:VEVENT",
    `UID:${escapeText(e.uid)}`,
    `DTSTAMP:${utcDateTime(e.stamp)}`,
    `DTSTART:${utcDateTime(e.start)}`,
  ];
  if (e.end !== null) lines.push(`DTEND:${utcDateTime(e.end)}`);
  lines.push(`SUMMARY:${escapeText(e.summary)}`);
  if (e.description) lines.push(`DESCRIPTION:${escapeText(e.description)}`);
  if (e.location) lines.push(`LOCATION:${escapeText(e.location)}`);
  // URL is a URI value (§3.8.4.6), not TEXT: written as it is, line breaks refused.
  if (e.url && !/[\r\n]/.test(e.url)) lines.push(`URL:${e.url}`);
  if (e.categories?.length) lines.push(`CATEGORIES:${e.categories.map(escapeText).join(",")}`);
  lines.push(`CREATED:${utcDateTime(e.created)}`, `LAST-MODIFIED:${utcDateTime(e.lastModified)}`, `SEQUENCE:${e.sequence}`, "STATUS:CONFIRMED", "END:VEVENT");
  return lines;
}

/** The whole VCALENDAR object, CRLF after every line (the last included). */
export function icsCalendar(cal: IcsCalendar): string {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    `PRODID:${escapeText(cal.prodId)}`,
    "CALSCALE:GREGORIAN",
    `NAME:${escapeText(cal.name)}`,
    `X-WR-CALNAME:${escapeText(cal.name)}`,
  ];
  if (cal.description) lines.push(`X-WR-CALDESC:${escapeText(cal.description)}`, `DESCRIPTION:${escapeText(cal.description)}`);
  lines.push(`REFRESH-INTERVAL;VALUE=DURATION:PT${cal.refreshMinutes}M`, `X-PUBLISHED-TTL:PT${cal.refreshMinutes}M`);
  for (const e of cal.events) lines.push(...eventLines(e));
  lines.push("END:VCALENDAR");
  return lines.map(foldLine).join(CRLF) + CRLF;
}
