// IP allowlists (spec Part 1 §5.1 item 7, Part 2 §2.7, §4.4): addresses and CIDR ranges, IPv4 and
// IPv6, parsed once into integers and matched with a mask and a compare per entry. An operator
// sets an agent's list through its confirmed claim; every request the agent makes with its
// credentials is checked against it (features/auth/service.ts).
//
// - An IPv4 address is one unsigned 32-bit integer; an IPv6 address four of them, most
//   significant first.
// - An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, as dual-stack sockets report IPv4 peers) is
//   the IPv4 address, in a list and in a request alike; so is a mapped range of prefix 96 or more.
// - An entry with host bits set (`10.1.2.3/8`) stands for its network (`10.0.0.0/8`); entries are
//   kept in canonical form (lower-case, compressed IPv6, no `/32` or `/128` on a single address),
//   duplicates dropped (docs/decisions.md §54).
// - Dotted quads with leading zeros (`010.0.0.1`, octal to some parsers) and IPv6 zone ids in a
//   list are refused; a zone id on a request's address is ignored.

/** An entry as integers: `net` already masked. */
interface V4Entry {
  net: number;
  mask: number;
}

interface Allowlist {
  /** The canonical entries, in the order given. */
  readonly entries: readonly string[];
  /** IPv4 ranges: net and mask pairs. */
  readonly v4: Uint32Array;
  /** IPv6 ranges: 8 words per entry, the 4 of the net then the 4 of the mask. */
  readonly v6: Uint32Array;
}

/** Most entries one list may hold (the reference service's cap). */
export const ALLOWLIST_MAX_ENTRIES = 20;

const DIGIT_0 = 48;
const DOT = 46;

/** The IPv4 address in s[start, end) as an unsigned integer, or -1. */
function parseV4(s: string, start: number, end: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let parts = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === DOT) {
      if (digits === 0 || parts === 3) return -1;
      value = value * 256 + octet;
      parts++;
      octet = 0;
      digits = 0;
      continue;
    }
    const d = c - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    // No leading zeros: "010" is octal to some parsers and ambiguous.
    if (digits === 1 && octet === 0) return -1;
    octet = octet * 10 + d;
    if (octet > 255) return -1;
    digits++;
  }
  if (digits === 0 || parts !== 3) return -1;
  return value * 256 + octet;
}

const hexValue = (c: number): number => {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
};

/**
 * Parses the IPv6 address in s[start, end) into `out` (four 32-bit words). Returns false when it
 * is not one. Accepts `::` once and a trailing dotted quad.
 */
function parseV6(s: string, start: number, end: number, out: Uint32Array): boolean {
  const groups = scratchGroups;
  let count = 0;
  let gap = -1;
  let i = start;
  if (end - start < 2) return false;
  if (s.charCodeAt(i) === 58) {
    if (s.charCodeAt(i + 1) !== 58) return false;
    gap = 0;
    i += 2;
    if (i === end) {
      out.fill(0);
      return true;
    }
  }
  while (i < end) {
    if (count === 8) return false;
    // A dotted quad ends the address and fills two groups.
    let j = i;
    let value = 0;
    let digits = 0;
    let sawDot = false;
    while (j < end) {
      const c = s.charCodeAt(j);
      if (c === 58) break;
      if (c === DOT) {
        sawDot = true;
        break;
      }
      const h = hexValue(c);
      if (h < 0 || digits === 4) return false;
      value = value * 16 + h;
      digits++;
      j++;
    }
    if (sawDot) {
      if (count > 6) return false;
      const v4 = parseV4(s, i, end);
      if (v4 < 0) return false;
      groups[count++] = v4 >>> 16;
      groups[count++] = v4 & 0xffff;
      i = end;
      break;
    }
    if (digits === 0) return false;
    groups[count++] = value;
    if (j === end) {
      i = end;
      break;
    }
    // s[j] is ':'
    if (s.charCodeAt(j + 1) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i = j + 2;
      if (i === end) break;
    } else {
      i = j + 1;
      if (i === end) return false;
    }
  }
  if (gap < 0 ? count !== 8 : count > 7) return false;
  const fill = gap < 0 ? 0 : 8 - count;
  for (let w = 0; w < 4; w++) out[w] = 0;
  for (let g = 0, k = 0; g < 8; g++) {
    let v: number;
    if (gap >= 0 && g >= gap && g < gap + fill) v = 0;
    else v = groups[k++];
    const w = g >> 1;
    out[w] = g & 1 ? (out[w] | v) >>> 0 : (v << 16) >>> 0;
  }
  return true;
}

const scratchGroups = new Uint16Array(8);
const scratchWords = new Uint32Array(4);

/** Whether `w` (IPv6 words) is an IPv4-mapped address `::ffff:a.b.c.d`. */
const isMapped = (w: Uint32Array) => w[0] === 0 && w[1] === 0 && w[2] === 0xffff;

/** `n` leading one bits of a 32-bit word (0 to 32). */
const maskBits = (n: number): number => (n <= 0 ? 0 : n >= 32 ? 0xffffffff : (0xffffffff << (32 - n)) >>> 0);

function formatV4(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** RFC 5952 text: lower case, the longest run of two or more zero groups as `::`. */
function formatV6(w: ArrayLike<number>): string {
  const g: number[] = [];
  for (let i = 0; i < 4; i++) g.push(w[i] >>> 16, w[i] & 0xffff);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number) => g.slice(from, to).map((x) => x.toString(16)).join(":");
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLen, 8)}`;
}

type Entry = { v: 4; net: number; mask: number; text: string } | { v: 6; net: Uint32Array; mask: Uint32Array; text: string };

/** One list entry (an address or a CIDR range) in canonical form, or null when it is not one. */
export function parseEntry(raw: string): Entry | null {
  const s = raw.trim();
  if (!s || s.length > 64 || s.includes("%")) return null;
  const slash = s.indexOf("/");
  const addrEnd = slash < 0 ? s.length : slash;
  let prefix = -1;
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    prefix = Number(p);
  }
  const v4 = parseV4(s, 0, addrEnd);
  if (v4 >= 0) {
    if (prefix > 32) return null;
    return v4Entry(v4, prefix < 0 ? 32 : prefix);
  }
  const words = new Uint32Array(4);
  if (!parseV6(s, 0, addrEnd, words)) return null;
  if (prefix > 128) return null;
  const bits = prefix < 0 ? 128 : prefix;
  // A mapped IPv4 range is that IPv4 range.
  if (isMapped(words) && bits >= 96) return v4Entry(words[3], bits - 96);
  const mask = new Uint32Array(4);
  for (let i = 0; i < 4; i++) {
    mask[i] = maskBits(bits - 32 * i);
    words[i] = (words[i] & mask[i]) >>> 0;
  }
  return { v: 6, net: words, mask, text: bits === 128 ? formatV6(words) : `${formatV6(words)}/${bits}` };
}

function v4Entry(address: number, bits: number): Entry {
  const mask = maskBits(bits);
  const net = (address & mask) >>> 0;
  return { v: 4, net, mask, text: bits === 32 ? formatV4(net) : `${formatV4(net)}/${bits}` };
}

/**
 * Validates and canonicalises a list as an operator sends it: the canonical entries (duplicates
 * dropped, order kept), or the first entry that is not an address or a range.
 */
export function normaliseAllowlist(input: readonly string[]): { entries: string[] } | { invalid: string } {
  const out: string[] = [];
  for (const raw of input) {
    const e = parseEntry(raw);
    if (!e) return { invalid: raw };
    if (!out.includes(e.text)) out.push(e.text);
  }
  return { entries: out };
}

/** Compiles canonical entries (as stored) into the integer form `allows` reads. Unparsable entries are skipped. */
export function compileAllowlist(entries: readonly string[]): Allowlist {
  const v4: V4Entry[] = [];
  const v6: number[] = [];
  const kept: string[] = [];
  for (const raw of entries) {
    const e = parseEntry(raw);
    if (!e) continue;
    kept.push(e.text);
    if (e.v === 4) v4.push({ net: e.net, mask: e.mask });
    else v6.push(...e.net, ...e.mask);
  }
  const v4a = new Uint32Array(v4.length * 2);
  v4.forEach((e, i) => {
    v4a[2 * i] = e.net;
    v4a[2 * i + 1] = e.mask;
  });
  return { entries: kept, v4: v4a, v6: Uint32Array.from(v6) };
}

/** The stored form of a list: canonical entries joined by commas (null for no list). */
export const allowlistText = (entries: readonly string[]): string | null => (entries.length ? entries.join(",") : null);

/**
 * Whether a client address (as a socket or a trusted proxy reports it) falls in the list. An
 * address that is not an IP address (an in-process request has none) is never allowed.
 */
export function allows(list: Allowlist, address: string): boolean {
  let end = address.length;
  const zone = address.indexOf("%");
  if (zone >= 0) end = zone;
  let v4 = parseV4(address, 0, end);
  if (v4 < 0) {
    const w = scratchWords;
    if (!parseV6(address, 0, end, w)) return false;
    if (isMapped(w)) v4 = w[3];
    else {
      const l = list.v6;
      for (let i = 0; i < l.length; i += 8) {
        if (
          ((w[0] & l[i + 4]) >>> 0) === l[i] &&
          ((w[1] & l[i + 5]) >>> 0) === l[i + 1] &&
          ((w[2] & l[i + 6]) >>> 0) === l[i + 2] &&
          ((w[3] & l[i + 7]) >>> 0) === l[i + 3]
        ) {
          return true;
        }
      }
      return false;
    }
  }
  const l = list.v4;
  for (let i = 0; i < l.length; i += 2) if (((v4 & l[i + 1]) >>> 0) === l[i]) return true;
  return false;
}

/**
 * Compiled lists per account, so a list is parsed once and not on every request: an entry is
 * used while the stored text it came from is unchanged, and rebuilt the first time it differs
 * (the operator changed the list). Bounded: emptied when it reaches `max` accounts.
 */
export class AllowlistCache {
  private readonly byUser = new Map<string, { text: string; list: Allowlist }>();

  constructor(private readonly max = 10_000) {}

  get(userId: string, text: string): Allowlist {
    const hit = this.byUser.get(userId);
    if (hit !== undefined && hit.text === text) return hit.list;
    if (this.byUser.size >= this.max) this.byUser.clear();
    const list = compileAllowlist(text.split(","));
    this.byUser.set(userId, { text, list });
    return list;
  }

  get size(): number {
    return this.byUser.size;
  }
}
