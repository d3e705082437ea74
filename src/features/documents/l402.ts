// L402 for document downloads (spec Part 3 §4.5): a macaroon minted with a root key derived
// from the instance's secrets, its identifier in the L402 layout (version 0, the payment hash,
// a random token id) and two first-party caveats: the one document it opens and the payment
// hash it is bound to. A client pays the invoice of the challenge and presents
// `Authorization: L402 <macaroon>:<preimage>`; the macaroon must verify under the root key, its
// caveats must name this document and the hash, and the preimage must hash to it.
//
// The package's own binary export (`exportBinary`) is not used: its byte buffer never sets the
// capacity its grow check reads, so every append doubles the buffer (a 2-caveat macaroon
// allocates tens of megabytes, a few more caveats exhaust memory). `encodeV2` writes the same
// v2 binary format from the macaroon's public fields; parsing and verifying are the package's.
import { createHmac, randomBytes } from "node:crypto";
import type * as MacaroonLib from "macaroon";
import type { Macaroon } from "macaroon";
import type { Ctx } from "../../core/context";

const VERSION = 0;
const DOCUMENT_CAVEAT = "document_id";
const HASH_CAVEAT = "payment_hash";

const FIELD_EOS = 0;
const FIELD_LOCATION = 1;
const FIELD_IDENTIFIER = 2;
const FIELD_VID = 4;
const FIELD_SIGNATURE = 6;

/** The macaroon in the v2 binary format (as go-macaroon and the package's import read it). */
/** The macaroon package, loaded on the first L402 use rather than at start-up (cold start). */
let macaroonLib: typeof MacaroonLib | null = null;
const macaroons = () => (macaroonLib ??= require("macaroon") as typeof MacaroonLib);

export function encodeV2(m: Macaroon): Uint8Array {
  const out: number[] = [2];
  const field = (type: number, data?: Uint8Array) => {
    out.push(type);
    if (type === FIELD_EOS || !data) return;
    let n = data.length;
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    for (const b of data) out.push(b);
  };
  const text = (s: string) => new TextEncoder().encode(s);
  if (m.location) field(FIELD_LOCATION, text(m.location));
  field(FIELD_IDENTIFIER, m.identifier);
  field(FIELD_EOS);
  for (const c of m.caveats as { identifier: Uint8Array; location?: string; vid?: Uint8Array }[]) {
    if (c.location) field(FIELD_LOCATION, text(c.location));
    field(FIELD_IDENTIFIER, c.identifier);
    if (c.vid) field(FIELD_VID, c.vid);
    field(FIELD_EOS);
  }
  field(FIELD_EOS);
  field(FIELD_SIGNATURE, m.signature);
  return new Uint8Array(out);
}

/** The macaroons' root key: an HMAC of the instance's data key, so it survives restarts and never leaves the server. */
function rootKey(ctx: Ctx): Uint8Array {
  return new Uint8Array(createHmac("sha256", ctx.secrets.dataKey).update("colony l402 macaroon root key v1").digest());
}

/** A new macaroon for `documentId` bound to `paymentHash` (hex), as standard base64. */
export function mintMacaroon(ctx: Ctx, documentId: string, paymentHash: string): string {
  const identifier = new Uint8Array(2 + 32 + 32);
  new DataView(identifier.buffer).setUint16(0, VERSION);
  identifier.set(Buffer.from(paymentHash, "hex"), 2);
  identifier.set(randomBytes(32), 34);
  const m = macaroons().newMacaroon({ identifier, location: ctx.config.publicUrl, rootKey: rootKey(ctx), version: 2 });
  m.addFirstPartyCaveat(`${DOCUMENT_CAVEAT}=${documentId}`);
  m.addFirstPartyCaveat(`${HASH_CAVEAT}=${paymentHash}`);
  return Buffer.from(encodeV2(m)).toString("base64");
}

interface L402Credentials {
  macaroon: string;
  preimage: string;
}

/** `L402 <macaroon>:<preimage>` (or the older `LSAT` scheme name); null for anything else. */
export function parseL402(authorization: string | null): L402Credentials | null {
  const m = authorization ? /^(?:L402|LSAT)\s+([A-Za-z0-9+/_=-]+):([0-9a-fA-F]{64})\s*$/.exec(authorization) : null;
  return m ? { macaroon: m[1]!, preimage: m[2]!.toLowerCase() } : null;
}

export const isL402 = (authorization: string | null) => !!authorization && /^(?:L402|LSAT)(?:\s|$)/i.test(authorization);

/**
 * The payment hash a macaroon is bound to, when it verifies under the root key and its caveats
 * scope it to `documentId` and name the hash of its identifier; null otherwise (forged, altered,
 * another document's, an unknown caveat added by a holder: refused, failing closed).
 */
export function verifyMacaroon(ctx: Ctx, encoded: string, documentId: string): string | null {
  let m;
  try {
    m = macaroons().importMacaroon(encoded);
    if (Array.isArray(m)) return null;
  } catch {
    return null;
  }
  const id = m.identifier;
  if (!(id instanceof Uint8Array) || id.length !== 66 || new DataView(id.buffer, id.byteOffset).getUint16(0) !== VERSION) return null;
  const hash = Buffer.from(id.subarray(2, 34)).toString("hex");
  const seen = new Set<string>();
  try {
    m.verify(rootKey(ctx), (condition: string) => {
      const eq = condition.indexOf("=");
      const key = eq < 0 ? condition : condition.slice(0, eq);
      const value = eq < 0 ? "" : condition.slice(eq + 1);
      if (key === DOCUMENT_CAVEAT && value === documentId) seen.add(key);
      else if (key === HASH_CAVEAT && value === hash) seen.add(key);
      else return `caveat not satisfied: ${condition}`;
      return null;
    });
  } catch {
    return null;
  }
  return seen.has(DOCUMENT_CAVEAT) && seen.has(HASH_CAVEAT) ? hash : null;
}

/** The WWW-Authenticate value of a 402 challenge. */
export const challengeHeader = (macaroon: string, invoice: string) => `L402 macaroon="${macaroon}", invoice="${invoice}"`;
