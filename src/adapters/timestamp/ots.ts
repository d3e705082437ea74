// The OpenTimestamps proof format (docs/decisions.md §95): enough of it to build a detached
// `.ots` file, read the answers of calendar servers, merge them and find what a proof attests to.
// Byte for byte the format of the reference implementation (python-opentimestamps,
// core/timestamp.py, op.py, notary.py):
//
//   file      = magic(31) · major version 0x01 · file hash op (0x08 sha256) · digest · timestamp
//   timestamp = (0xff item)* item          — every item but the last is prefixed by 0xff (a fork)
//   item      = 0x00 attestation           — the message at this node is attested
//             | op timestamp               — the op applied to this node's message leads on
//   op        = 0xf0 varbytes (append) | 0xf1 varbytes (prepend) | 0x08 sha256 | 0x02 sha1
//             | 0x03 ripemd160 | 0x67 keccak256 | 0xf2 reverse | 0xf3 hexlify
//   attestation = tag(8) · varbytes(payload)
//             pending 83dfe30d2ef90c8e: payload = varbytes(calendar URI)
//             bitcoin 0588960d73d71901: payload = varuint(block height)
//             anything else is kept as an unknown attestation and written back unchanged
//   varuint   = unsigned LEB128; varbytes = varuint length · bytes
//
// A node's items are written attestations first, then ops, each sorted as the reference sorts
// them, so a proof we build serialises exactly as `ots` would write the same tree. The parser is
// for untrusted input (calendar answers): it bounds message and argument lengths, attestation
// payloads, URIs and nesting depth as the reference does, and throws OtsError, never anything else.
import { createHash } from "node:crypto";

export class OtsError extends Error {}

export const MAGIC = Uint8Array.from([
  0x00, ...new TextEncoder().encode("OpenTimestamps"), 0x00, 0x00, ...new TextEncoder().encode("Proof"), 0x00, 0xbf, 0x89, 0xe2, 0xe8, 0x84, 0xe8, 0x92, 0x94,
]);
const MAJOR_VERSION = 1;
/** The media type calendars answer with and `.ots` files are served as. */
export const OTS_MEDIA_TYPE = "application/vnd.opentimestamps.v1";

const PENDING_TAG = "83dfe30d2ef90c8e";
const BITCOIN_TAG = "0588960d73d71901";

/** Limits of the reference implementation. */
const MAX_MSG_LENGTH = 4096;
const MAX_RESULT_LENGTH = 4096;
const MAX_PAYLOAD_SIZE = 8192;
const MAX_URI_LENGTH = 1000;
const MAX_DEPTH = 256;
const URI_CHARS = /^[A-Za-z0-9\-._/:]*$/;

export const OP = {
  sha1: 0x02,
  ripemd160: 0x03,
  sha256: 0x08,
  keccak256: 0x67,
  append: 0xf0,
  prepend: 0xf1,
  reverse: 0xf2,
  hexlify: 0xf3,
} as const;
const BINARY = new Set<number>([OP.append, OP.prepend]);
const UNARY = new Set<number>([OP.sha1, OP.ripemd160, OP.sha256, OP.keccak256, OP.reverse, OP.hexlify]);
/** The hash ops a detached file may name, with their digest lengths. */
const FILE_HASH_LENGTH = new Map<number, number>([
  [OP.sha1, 20],
  [OP.ripemd160, 20],
  [OP.sha256, 32],
  [OP.keccak256, 32],
]);

export interface Op {
  tag: number;
  /** The argument of append and prepend. */
  arg?: Uint8Array;
}

type Attestation =
  | { type: "pending"; uri: string }
  | { type: "bitcoin"; height: number }
  | { type: "unknown"; tag: string; payload: Uint8Array };

export interface Timestamp {
  /** The message this node commits to. */
  msg: Uint8Array;
  attestations: Attestation[];
  ops: { op: Op; stamp: Timestamp }[];
}

interface DetachedFile {
  /** The op that hashed the file (sha256 for everything this server makes). */
  fileHashOp: number;
  timestamp: Timestamp;
}

// ---------------------------------------------------------------------------------------------
// Bytes

export const toHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
export const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));

const concat = (parts: readonly Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.byteLength - b.byteLength;
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) === 0;

export function varuint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new OtsError(`varuint out of range: ${n}`);
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Uint8Array.from(out);
}

const varbytes = (b: Uint8Array) => concat([varuint(b.byteLength), b]);

class Reader {
  at = 0;
  constructor(private bytes: Uint8Array) {}

  byte(): number {
    if (this.at >= this.bytes.byteLength) throw new OtsError("Unexpected end of proof");
    return this.bytes[this.at++];
  }

  take(n: number): Uint8Array {
    if (this.at + n > this.bytes.byteLength) throw new OtsError("Unexpected end of proof");
    const out = this.bytes.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }

  varuint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (!Number.isSafeInteger(value)) throw new OtsError("varuint too large");
      if (!(b & 0x80)) return value;
      scale *= 128;
    }
  }

  varbytes(max: number, min = 0): Uint8Array {
    const n = this.varuint();
    if (n > max) throw new OtsError(`varbytes too long: ${n} > ${max}`);
    if (n < min) throw new OtsError(`varbytes too short: ${n} < ${min}`);
    return this.take(n);
  }

  done(): boolean {
    return this.at === this.bytes.byteLength;
  }
}

// ---------------------------------------------------------------------------------------------
// Ops

const hash = (name: string, msg: Uint8Array) => Uint8Array.from(createHash(name).update(msg).digest());

/** Applies an op to a message under the reference's length limits. */
export function applyOp(op: Op, msg: Uint8Array): Uint8Array {
  if (msg.byteLength > MAX_MSG_LENGTH) throw new OtsError(`Message too long: ${msg.byteLength} > ${MAX_MSG_LENGTH}`);
  let r: Uint8Array;
  switch (op.tag) {
    case OP.append:
      r = concat([msg, op.arg!]);
      break;
    case OP.prepend:
      r = concat([op.arg!, msg]);
      break;
    case OP.sha256:
      r = hash("sha256", msg);
      break;
    case OP.sha1:
      r = hash("sha1", msg);
      break;
    case OP.ripemd160:
      r = hash("ripemd160", msg);
      break;
    case OP.reverse:
      if (!msg.byteLength) throw new OtsError("Cannot reverse an empty message");
      r = msg.slice().reverse();
      break;
    case OP.hexlify:
      if (!msg.byteLength) throw new OtsError("Cannot hexlify an empty message");
      if (msg.byteLength > MAX_RESULT_LENGTH / 2) throw new OtsError("Message too long to hexlify");
      r = new TextEncoder().encode(toHex(msg));
      break;
    case OP.keccak256:
      throw new OtsError("keccak256 is not supported");
    default:
      throw new OtsError(`Unknown operation tag 0x${op.tag.toString(16)}`);
  }
  if (r.byteLength > MAX_RESULT_LENGTH) throw new OtsError(`Result too long: ${r.byteLength} > ${MAX_RESULT_LENGTH}`);
  return r;
}

function readOp(r: Reader, tag: number): Op {
  if (BINARY.has(tag)) return { tag, arg: r.varbytes(MAX_RESULT_LENGTH, 1) };
  if (UNARY.has(tag)) return { tag };
  throw new OtsError(`Unknown operation tag 0x${tag.toString(16)}`);
}

const writeOp = (op: Op) => (op.arg ? concat([Uint8Array.of(op.tag), varbytes(op.arg)]) : Uint8Array.of(op.tag));

function compareOps(a: Op, b: Op): number {
  if (a.tag !== b.tag) return a.tag - b.tag;
  return a.arg && b.arg ? compareBytes(a.arg, b.arg) : 0;
}

// ---------------------------------------------------------------------------------------------
// Attestations

function readAttestation(r: Reader): Attestation {
  const tag = toHex(r.take(8));
  const payload = r.varbytes(MAX_PAYLOAD_SIZE);
  if (tag !== PENDING_TAG && tag !== BITCOIN_TAG) return { type: "unknown", tag, payload };
  const p = new Reader(payload);
  let a: Attestation;
  if (tag === PENDING_TAG) {
    const uri = new TextDecoder().decode(p.varbytes(MAX_URI_LENGTH));
    if (!URI_CHARS.test(uri)) throw new OtsError("Invalid calendar URI in a pending attestation");
    a = { type: "pending", uri };
  } else {
    a = { type: "bitcoin", height: p.varuint() };
  }
  if (!p.done()) throw new OtsError("Trailing bytes in an attestation");
  return a;
}

function attestationParts(a: Attestation): { tag: Uint8Array; payload: Uint8Array } {
  switch (a.type) {
    case "pending":
      if (a.uri.length > MAX_URI_LENGTH || !URI_CHARS.test(a.uri)) throw new OtsError("Invalid calendar URI");
      return { tag: fromHex(PENDING_TAG), payload: varbytes(new TextEncoder().encode(a.uri)) };
    case "bitcoin":
      return { tag: fromHex(BITCOIN_TAG), payload: varuint(a.height) };
    case "unknown":
      return { tag: fromHex(a.tag), payload: a.payload };
  }
}

function writeAttestation(a: Attestation): Uint8Array {
  const { tag, payload } = attestationParts(a);
  return concat([tag, varbytes(payload)]);
}

/** The reference's order: by tag across kinds; by URI, height or (tag, payload) within one. */
function compareAttestations(a: Attestation, b: Attestation): number {
  if (a.type === "pending" && b.type === "pending") return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
  if (a.type === "bitcoin" && b.type === "bitcoin") return a.height - b.height;
  const pa = attestationParts(a);
  const pb = attestationParts(b);
  return compareBytes(pa.tag, pb.tag) || (a.type === "unknown" && b.type === "unknown" ? compareBytes(pa.payload, pb.payload) : 0);
}

const sameAttestation = (a: Attestation, b: Attestation) => a.type === b.type && compareAttestations(a, b) === 0;

// ---------------------------------------------------------------------------------------------
// Timestamps

export const newTimestamp = (msg: Uint8Array): Timestamp => ({ msg, attestations: [], ops: [] });

function readTimestamp(r: Reader, msg: Uint8Array, depth: number): Timestamp {
  if (depth <= 0) throw new OtsError("Proof nested too deeply");
  const stamp = newTimestamp(msg);
  const item = (tag: number) => {
    if (tag === 0x00) {
      const a = readAttestation(r);
      if (!stamp.attestations.some((x) => sameAttestation(x, a))) stamp.attestations.push(a);
      return;
    }
    const op = readOp(r, tag);
    const child = readTimestamp(r, applyOp(op, msg), depth - 1);
    const existing = stamp.ops.find((x) => compareOps(x.op, op) === 0);
    if (existing) mergeTimestamp(existing.stamp, child);
    else stamp.ops.push({ op, stamp: child });
  };
  let tag = r.byte();
  while (tag === 0xff) {
    item(r.byte());
    tag = r.byte();
  }
  item(tag);
  return stamp;
}

/** Parses a serialised timestamp for `msg` (a calendar's answer); the bytes must be consumed exactly. */
export function parseTimestamp(bytes: Uint8Array, msg: Uint8Array): Timestamp {
  const r = new Reader(bytes);
  const stamp = readTimestamp(r, msg, MAX_DEPTH);
  if (!r.done()) throw new OtsError("Trailing bytes after the timestamp");
  return stamp;
}

export function serializeTimestamp(stamp: Timestamp): Uint8Array {
  const parts: Uint8Array[] = [];
  const write = (s: Timestamp) => {
    if (!s.attestations.length && !s.ops.length) throw new OtsError("An empty timestamp cannot be serialised");
    const atts = [...s.attestations].sort(compareAttestations);
    const ops = [...s.ops].sort((a, b) => compareOps(a.op, b.op));
    const items = [...atts.map((a) => ({ a })), ...ops.map((o) => ({ o }))];
    items.forEach((item, i) => {
      if (i < items.length - 1) parts.push(Uint8Array.of(0xff));
      if ("a" in item) parts.push(Uint8Array.of(0x00), writeAttestation(item.a));
      else {
        parts.push(writeOp(item.o.op));
        write(item.o.stamp);
      }
    });
  };
  write(stamp);
  return concat(parts);
}

/** Adds every op and attestation of `other` (a timestamp of the same message) to `into`. */
export function mergeTimestamp(into: Timestamp, other: Timestamp): void {
  if (!equalBytes(into.msg, other.msg)) throw new OtsError("Cannot merge timestamps of different messages");
  for (const a of other.attestations) if (!into.attestations.some((x) => sameAttestation(x, a))) into.attestations.push(a);
  for (const { op, stamp } of other.ops) {
    const existing = into.ops.find((x) => compareOps(x.op, op) === 0);
    if (existing) mergeTimestamp(existing.stamp, stamp);
    else into.ops.push({ op, stamp });
  }
}

/** Every attestation in the tree with the message it attests to. */
export function* allAttestations(stamp: Timestamp): Generator<{ msg: Uint8Array; attestation: Attestation }> {
  for (const attestation of stamp.attestations) yield { msg: stamp.msg, attestation };
  for (const { stamp: child } of stamp.ops) yield* allAttestations(child);
}

/** The node whose message is `msg`, or null. */
export function findNode(stamp: Timestamp, msg: Uint8Array): Timestamp | null {
  if (equalBytes(stamp.msg, msg)) return stamp;
  for (const { stamp: child } of stamp.ops) {
    const found = findNode(child, msg);
    if (found) return found;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Detached timestamp files (.ots)

/** A detached `.ots` file for a SHA-256 digest and its timestamp tree. */
export function serializeDetached(stamp: Timestamp, fileHashOp: number = OP.sha256): Uint8Array {
  const len = FILE_HASH_LENGTH.get(fileHashOp);
  if (len === undefined || stamp.msg.byteLength !== len) throw new OtsError("The digest does not match the file hash op");
  return concat([MAGIC, Uint8Array.of(MAJOR_VERSION), Uint8Array.of(fileHashOp), stamp.msg, serializeTimestamp(stamp)]);
}

export function parseDetached(bytes: Uint8Array): DetachedFile {
  const r = new Reader(bytes);
  if (bytes.byteLength < MAGIC.byteLength || !equalBytes(r.take(MAGIC.byteLength), MAGIC)) throw new OtsError("Not an OpenTimestamps proof (bad magic)");
  const major = r.byte();
  if (major !== MAJOR_VERSION) throw new OtsError(`Unsupported major version ${major}`);
  const fileHashOp = r.byte();
  const len = FILE_HASH_LENGTH.get(fileHashOp);
  if (len === undefined) throw new OtsError(`Unknown file hash op 0x${fileHashOp.toString(16)}`);
  const timestamp = readTimestamp(r, r.take(len), MAX_DEPTH);
  if (!r.done()) throw new OtsError("Trailing bytes after the proof");
  return { fileHashOp, timestamp };
}
