// Outbound HTTP to addresses chosen by users or operators (webhooks, domain verification,
// OpenTimestamps calendars): a guarded POST or GET, with a text or a binary body. The URL must be
// http or https; its host is resolved and every address checked against the SSRF blocklist (loopback,
// private, CGNAT, link-local incl. cloud metadata, unique-local IPv6, unspecified, multicast,
// reserved), unless private targets are explicitly allowed (local development, tests). The request
// is pinned to the address that was checked (plain http: the IP in the URL and the original Host
// header; https: the IP with SNI and certificate verification against the original host name), so
// a DNS answer that changes between check and connect cannot redirect it. Redirects are never
// followed (a 3xx is an answer like any other), the request has a timeout, and at most
// `maxResponseBytes` of the answer are kept.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { checkServerIdentity } from "node:tls";

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why a URL is refused; `reason` is stable and safe to show to the URL's owner. */
export class OutboundUrlError extends Error {
  constructor(
    readonly reason: "invalid_url" | "scheme" | "credentials" | "unresolvable" | "private_address",
    message: string,
  ) {
    super(message);
  }
}

export interface GuardOptions {
  /** Allow loopback and private targets (COLONY_ALLOW_PRIVATE_WEBHOOKS). */
  allowPrivate: boolean;
  resolver?: Resolver;
}

interface RequestOptions extends GuardOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Bytes of the response body kept (default 4096). */
  maxResponseBytes?: number;
  /**
   * Extra certificate authorities (PEM) trusted for https, beside the system's. Tests only: a
   * local server's self-signed certificate; the host name is still checked against it.
   */
  ca?: string;
}

interface PostOptions extends RequestOptions {
  headers: Record<string, string>;
  body: string;
}

export interface OutboundResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The answer's status; null when none arrived (refused, unreachable, timed out). */
  status: number | null;
  /** Up to maxResponseBytes of the answer, decoded as UTF-8. */
  body: string | null;
  /** What went wrong when there was no answer (or the URL was refused). */
  error: string | null;
  durationMs: number;
}

// ---------------------------------------------------------------------------------------------
// Address classification

function ipv4Parts(ip: string): number[] | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const n = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return n.every((x) => x >= 0 && x <= 255) ? n : null;
}

/** IPv4 ranges a user-supplied URL must not reach (IANA's special-purpose registry, RFC 6890). */
const BLOCKED_V4 = blockList("ipv4", [
  ["0.0.0.0", 8], // "this network", incl. the unspecified 0.0.0.0
  ["10.0.0.0", 8], // RFC 1918
  ["100.64.0.0", 10], // CGNAT, RFC 6598
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, incl. 169.254.169.254 metadata
  ["172.16.0.0", 12], // RFC 1918
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // RFC 1918
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and broadcast
]);

/** IPv6 ranges refused whatever they carry (those that embed an IPv4 address are checked by it, below). */
const BLOCKED_V6 = blockList("ipv6", [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo: the IPv4 addresses it carries are obscured
  ["2001:2::", 48], // benchmarking
  ["2001:db8::", 32], // documentation
  ["64:ff9b:1::", 48], // NAT64 for local use
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
]);

function blockList(type: "ipv4" | "ipv6", subnets: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of subnets) list.addSubnet(net, prefix, type);
  return list;
}

function blockedV4(ip: string): boolean {
  return !ipv4Parts(ip) || BLOCKED_V4.check(ip, "ipv4");
}

/** The 8 16-bit groups of an IPv6 address (an embedded IPv4 tail is converted), or null. */
function ipv6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (v4) {
    const p = ipv4Parts(v4[1]);
    if (!p) return null;
    s = s.slice(0, -v4[1].length) + `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail].map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return groups.length === 8 && groups.every((g) => !Number.isNaN(g)) ? groups : null;
}

function blockedV6(ip: string): boolean {
  const g = ipv6Groups(ip);
  if (!g) return true;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // Prefixes that carry an IPv4 address are as reachable as that address.
  if (zeroTo(5) && g[5] === 0xffff) return blockedV4(v4(g[6], g[7])); // ::ffff:a.b.c.d mapped
  if (zeroTo(6) && (g[6] !== 0 || g[7] > 1)) return blockedV4(v4(g[6], g[7])); // ::a.b.c.d compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedV4(v4(g[6], g[7])); // NAT64, 64:ff9b::/96
  if (g[0] === 0x2002) return blockedV4(v4(g[1], g[2])); // 6to4, 2002::/16
  return BLOCKED_V6.check(g.map((x) => x.toString(16)).join(":"), "ipv6");
}

/** Whether an IP address (v4 or v6) is one a user-supplied URL must not reach. */
export function isBlockedAddress(ip: string): boolean {
  const kind = isIP(ip.replace(/%.*$/, ""));
  if (kind === 4) return blockedV4(ip);
  if (kind === 6) return blockedV6(ip);
  return true;
}

// ---------------------------------------------------------------------------------------------
// URL check

interface CheckedUrl {
  url: URL;
  /** The host name as written (brackets removed for IPv6 literals). */
  host: string;
  /** The address the request will be pinned to. */
  address: string;
}

/** Parses and checks a URL, resolving its host; throws OutboundUrlError when it must not be used. */
export async function checkOutboundUrl(raw: string, opts: GuardOptions): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError("invalid_url", "Not a valid absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundUrlError("scheme", "Only http and https URLs are allowed");
  if (url.username || url.password) throw new OutboundUrlError("credentials", "URLs with user names or passwords are not allowed");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!host) throw new OutboundUrlError("invalid_url", "The URL has no host");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolver ?? systemResolver)(host);
    } catch {
      addresses = [];
    }
    if (!addresses.length) throw new OutboundUrlError("unresolvable", `The host ${host} does not resolve`);
  }
  if (!opts.allowPrivate) {
    // Every answer must be public: a mix would let a rebinding resolver pick the private one.
    const bad = addresses.find(isBlockedAddress);
    if (bad) throw new OutboundUrlError("private_address", `The host ${host} resolves to a private, loopback, link-local or reserved address`);
  }
  return { url, host, address: addresses[0] };
}

// ---------------------------------------------------------------------------------------------
// The request

/** At most `max` bytes of the answer's body; the rest is not read. */
async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // Whatever is left is not wanted: stop reading (and let the connection go).
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, Math.min(c.byteLength, all.byteLength - at));
    all.set(part, at);
    at += part.byteLength;
    if (at >= all.byteLength) break;
  }
  return all;
}

const decodeText = (bytes: Uint8Array) => new TextDecoder("utf-8", { fatal: false }).decode(bytes);

/** POSTs `body` to `raw` through the guard; never throws (a refusal or failure is in `error`). */
export function guardedPost(raw: string, opts: PostOptions): Promise<OutboundResult> {
  return guardedRequest("POST", raw, opts, opts.body);
}

/** GETs `raw` through the guard (no redirects followed); never throws (a refusal or failure is in `error`). */
export function guardedGet(raw: string, opts: RequestOptions): Promise<OutboundResult> {
  return guardedRequest("GET", raw, opts);
}

/** An answer whose body is kept as bytes (binary protocols such as OpenTimestamps calendars). */
interface OutboundBytesResult extends Omit<OutboundResult, "body"> {
  body: Uint8Array | null;
}

/** GETs or POSTs raw bytes through the guard, keeping the answer as bytes; never throws. */
export function guardedBytes(method: "GET" | "POST", raw: string, opts: RequestOptions & { body?: Uint8Array }): Promise<OutboundBytesResult> {
  return send(method, raw, opts, opts.body, (b) => b);
}

async function guardedRequest(method: "GET" | "POST", raw: string, opts: RequestOptions, body?: string): Promise<OutboundResult> {
  return send(method, raw, opts, body, decodeText);
}

async function send<T>(method: "GET" | "POST", raw: string, opts: RequestOptions, body: string | Uint8Array | undefined, decode: (b: Uint8Array) => T) {
  const started = performance.now();
  const done = (r: { ok: boolean; status: number | null; body: T | null; error: string | null }) => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let checked: CheckedUrl;
  try {
    checked = await checkOutboundUrl(raw, opts);
  } catch (err) {
    return done({ ok: false, status: null, body: null, error: err instanceof OutboundUrlError ? `refused: ${err.message}` : String(err) });
  }
  const { url, host, address } = checked;
  const target = new URL(url.href);
  target.hostname = isIP(address) === 6 ? `[${address}]` : address;
  const headers: Record<string, string> = { ...opts.headers, Host: url.host };
  const init: RequestInit & { tls?: Record<string, unknown> } = { method, headers, body, redirect: "manual" };
  if (url.protocol === "https:" && !isIP(host)) {
    // Connect to the checked address but verify the certificate against the host name.
    init.tls = { serverName: host, checkServerIdentity: (_name: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(host, cert) };
  }
  if (url.protocol === "https:" && opts.ca) init.tls = { ...init.tls, ca: opts.ca };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    const res = await fetch(target.href, { ...init, signal: controller.signal } as RequestInit);
    const bytes = await readCapped(res, opts.maxResponseBytes ?? 4096);
    return done({ ok: res.status >= 200 && res.status < 300, status: res.status, body: decode(bytes), error: null });
  } catch (err) {
    const message = controller.signal.aborted ? `timed out after ${opts.timeoutMs} ms` : err instanceof Error ? err.message : String(err);
    return done({ ok: false, status: null, body: null, error: message.slice(0, 500) });
  } finally {
    clearTimeout(timer);
  }
}
