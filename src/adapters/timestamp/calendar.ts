// OpenTimestamps calendar servers over HTTP, through the SSRF guard of http-out.ts (the checked
// address pinned, no redirect followed, a timeout, at most 10,000 bytes of an answer, as the
// reference client reads). Two calls of the calendar protocol:
//
//   POST <calendar>/digest             body: the raw digest; 200: a timestamp for that digest,
//                                      ending in a pending attestation (the calendar's promise)
//   GET  <calendar>/timestamp/<hex>    200: a timestamp for that commitment (merged into the
//                                      calendar's tree, perhaps anchored in Bitcoin); 404: not
//                                      (yet) — "Pending confirmation in Bitcoin blockchain"
//
// both with `Accept: application/vnd.opentimestamps.v1`. Nothing here throws: each calendar's
// outcome is a value, so one calendar that is down or slow never spoils the others.
import { guardedBytes, type Resolver } from "../http-out";
import {
  allAttestations,
  findNode,
  mergeTimestamp,
  newTimestamp,
  OTS_MEDIA_TYPE,
  OtsError,
  parseDetached,
  parseTimestamp,
  serializeDetached,
  toHex,
  type Timestamp,
} from "./ots";

/** The most of a calendar's answer read, as the reference client does. */
const MAX_CALENDAR_ANSWER = 10_000;

interface CalendarOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  resolver?: Resolver;
}

const HEADERS = { accept: OTS_MEDIA_TYPE, "user-agent": "Colony-Notarisation/1.0" };

type SubmitOutcome = { calendar: string; ok: true; timestamp: Timestamp } | { calendar: string; ok: false; error: string };

/** Submits a digest to one calendar; its answer is parsed as a timestamp for the digest. */
export async function submitDigest(calendar: string, digest: Uint8Array, opts: CalendarOptions): Promise<SubmitOutcome> {
  const r = await guardedBytes("POST", `${calendar}/digest`, {
    ...opts,
    headers: { ...HEADERS, "content-type": "application/octet-stream" },
    body: digest,
    maxResponseBytes: MAX_CALENDAR_ANSWER + 1,
  });
  if (!r.ok || !r.body) return { calendar, ok: false, error: r.error ?? `answered ${r.status}` };
  if (r.body.byteLength > MAX_CALENDAR_ANSWER) return { calendar, ok: false, error: "answer over 10,000 bytes" };
  try {
    return { calendar, ok: true, timestamp: parseTimestamp(r.body, digest) };
  } catch (err) {
    return { calendar, ok: false, error: `not a timestamp: ${err instanceof OtsError ? err.message : String(err)}` };
  }
}

interface Submission {
  /** Every calendar's timestamp merged into one tree (a fork per calendar); null when none answered. */
  timestamp: Timestamp | null;
  accepted: string[];
  failed: { calendar: string; error: string }[];
}

/** Submits a digest to every calendar at once and merges the answers. */
export async function submitToCalendars(calendars: readonly string[], digest: Uint8Array, opts: CalendarOptions): Promise<Submission> {
  const outcomes = await Promise.all(calendars.map((c) => submitDigest(c, digest, opts)));
  const tree = newTimestamp(digest);
  const accepted: string[] = [];
  const failed: { calendar: string; error: string }[] = [];
  for (const o of outcomes) {
    if (o.ok) {
      mergeTimestamp(tree, o.timestamp);
      accepted.push(o.calendar);
    } else failed.push({ calendar: o.calendar, error: o.error });
  }
  return { timestamp: accepted.length ? tree : null, accepted, failed };
}

type UpgradeOutcome =
  | { calendar: string; kind: "timestamp"; timestamp: Timestamp }
  | { calendar: string; kind: "not_yet"; message: string }
  | { calendar: string; kind: "error"; error: string };

/** The first line of a calendar's 404, keeping only harmless characters (as the reference client does). */
const sanitise = (bytes: Uint8Array) =>
  new TextDecoder()
    .decode(bytes.subarray(0, 160))
    .replace(/[^A-Za-z0-9#\-.,; ]/g, "_")
    .trim();

/** Asks a calendar for the timestamp of a commitment it promised to include. */
async function fetchUpgrade(calendar: string, commitment: Uint8Array, opts: CalendarOptions): Promise<UpgradeOutcome> {
  const r = await guardedBytes("GET", `${calendar}/timestamp/${toHex(commitment)}`, { ...opts, headers: HEADERS, maxResponseBytes: MAX_CALENDAR_ANSWER + 1 });
  if (r.status === 404) return { calendar, kind: "not_yet", message: sanitise(r.body ?? new Uint8Array(0)) || "not found" };
  if (!r.ok || !r.body) return { calendar, kind: "error", error: r.error ?? `answered ${r.status}` };
  if (r.body.byteLength > MAX_CALENDAR_ANSWER) return { calendar, kind: "error", error: "answer over 10,000 bytes" };
  try {
    return { calendar, kind: "timestamp", timestamp: parseTimestamp(r.body, commitment) };
  } catch (err) {
    return { calendar, kind: "error", error: `not a timestamp: ${err instanceof OtsError ? err.message : String(err)}` };
  }
}

/**
 * The calendars the reference client trusts to upgrade a proof by default (`ots upgrade`'s
 * whitelist): a pending attestation names the calendar that will hold the commitment, which for
 * the public pools is a host below these rather than the pool the digest was sent to.
 */
const PUBLIC_UPGRADE_HOSTS = ["*.calendar.opentimestamps.org", "*.calendar.eternitywall.com", "*.calendar.catallaxy.com"];

/**
 * Whether a pending attestation's URI may be asked for an upgrade: the origin of a configured
 * calendar, or an https URI without a path on a host of the public calendars. A proof is built
 * from calendars' answers, so a URI in it is never fetched just because it is there
 * (docs/decisions.md §92).
 */
export function upgradeAllowed(uri: string, calendars: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.search || url.hash || url.username || url.password) return false;
  if (calendars.some((c) => new URL(c).origin === url.origin && url.pathname.replace(/\/+$/, "") === new URL(c).pathname.replace(/\/+$/, ""))) return true;
  if (url.protocol !== "https:" || (url.pathname !== "/" && url.pathname !== "") || url.port) return false;
  return PUBLIC_UPGRADE_HOSTS.some((p) => url.hostname.endsWith(p.slice(1)) && url.hostname.length > p.length - 1);
}

interface ProofFacts {
  /** Calendars still holding a promise (pending attestations), by URI. */
  pending: string[];
  /** Heights of the Bitcoin blocks the proof names, lowest first. */
  bitcoinHeights: number[];
}

export function proofFacts(stamp: Timestamp): ProofFacts {
  const pending = new Set<string>();
  const heights = new Set<number>();
  for (const { attestation } of allAttestations(stamp)) {
    if (attestation.type === "pending") pending.add(attestation.uri);
    if (attestation.type === "bitcoin") heights.add(attestation.height);
  }
  return { pending: [...pending].sort(), bitcoinHeights: [...heights].sort((a, b) => a - b) };
}

export interface Upgrade {
  /** The proof with every answer merged in (the same bytes when nothing was learnt). */
  proof: Uint8Array;
  /** Some calendar answered with a timestamp for a commitment of ours. */
  merged: boolean;
  facts: ProofFacts;
  /** What each calendar asked said, in words (for the record's note). */
  answers: UpgradeOutcome[];
}

/**
 * Asks every allowed calendar named by a pending attestation of the proof for its timestamp and
 * merges what they return. Each (calendar, commitment) is asked once per call.
 */
export async function upgradeProof(proof: Uint8Array, calendars: readonly string[], opts: CalendarOptions): Promise<Upgrade> {
  const { fileHashOp, timestamp } = parseDetached(proof);
  const asks = new Map<string, { uri: string; msg: Uint8Array }>();
  for (const { msg, attestation } of allAttestations(timestamp)) {
    if (attestation.type !== "pending" || !upgradeAllowed(attestation.uri, calendars)) continue;
    asks.set(`${attestation.uri} ${toHex(msg)}`, { uri: attestation.uri, msg });
  }
  const answers = await Promise.all([...asks.values()].map((a) => fetchUpgrade(a.uri, a.msg, opts).then((o) => ({ o, msg: a.msg }))));
  let merged = false;
  for (const { o, msg } of answers) {
    if (o.kind !== "timestamp") continue;
    const node = findNode(timestamp, msg);
    if (!node) continue;
    mergeTimestamp(node, o.timestamp);
    merged = true;
  }
  return { proof: merged ? serializeDetached(timestamp, fileHashOp) : proof, merged, facts: proofFacts(timestamp), answers: answers.map((a) => a.o) };
}
