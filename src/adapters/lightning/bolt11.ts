// BOLT11 payment requests written by the development wallet: a regtest invoice (`lnbcrt…`) with
// the payment hash, a payment secret, a description, an expiry and the features every wallet
// expects (var_onion_optin, payment_secret), signed with the wallet's secp256k1 key so that the
// node id recovered from it is the wallet's. Reading invoices (amounts, hashes, expiry) is
// @getalby/lightning-tools' decoder; writing one is not in any light library, hence this file.
// https://github.com/lightning/bolts/blob/master/11-payment-encoding.md
import { sha256 } from "@noble/hashes/sha2.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bech32 } from "@scure/base";

interface InvoiceFields {
  /** Amount in millisatoshis (a whole number of satoshis here). */
  amountMsat: number;
  paymentHash: Uint8Array;
  paymentSecret: Uint8Array;
  description: string;
  expirySeconds: number;
  /** Seconds since the epoch. */
  timestamp: number;
}

/** Regtest: no mainnet wallet will try to pay a development invoice. */
const DEV_HRP_PREFIX = "lnbcrt";

/** A non-negative integer as big-endian 5-bit words, as few as it needs (at least one). */
function intWords(n: number, minWords = 1): number[] {
  const out: number[] = [];
  let v = BigInt(n);
  while (v > 0n) {
    out.unshift(Number(v & 31n));
    v >>= 5n;
  }
  while (out.length < minWords) out.unshift(0);
  return out;
}

function tagged(type: number, words: number[]): number[] {
  if (words.length >= 1024) throw new Error("bolt11: a tagged field is at most 1023 words");
  return [type, ...intWords(words.length, 2), ...words];
}

/** The amount part of the prefix: nano-bitcoin (1n = 100 msat), so any whole satoshi amount is exact. */
function amountPart(msat: number): string {
  if (!Number.isSafeInteger(msat) || msat <= 0 || msat % 1000 !== 0) throw new Error("bolt11: the amount must be a whole number of satoshis");
  return `${msat / 100}n`;
}

/** Field types of BOLT11 used here. */
const P = 1, S = 16, D = 13, X = 6, C = 24, NINE = 5;

export function encodeInvoice(fields: InvoiceFields, secretKey: Uint8Array): string {
  const hrp = DEV_HRP_PREFIX + amountPart(fields.amountMsat);
  // Features: var_onion_optin (bit 8) and payment_secret (bit 14), both required.
  const features = intWords((1 << 8) | (1 << 14));
  const data = [
    ...intWords(fields.timestamp, 7),
    ...tagged(P, bech32.toWords(fields.paymentHash)),
    ...tagged(S, bech32.toWords(fields.paymentSecret)),
    ...tagged(D, bech32.toWords(new TextEncoder().encode(fields.description))),
    ...tagged(X, intWords(fields.expirySeconds)),
    ...tagged(C, intWords(18)),
    ...tagged(NINE, features),
  ];
  // The signed message: the prefix's bytes, then the data words packed into bytes (zero-padded).
  const packed = wordsToBytesPadded(data);
  const digest = sha256(new Uint8Array([...new TextEncoder().encode(hrp), ...packed]));
  const recovered = secp256k1.sign(digest, secretKey, { prehash: false, format: "recovered" });
  // noble writes the recovery id first; BOLT11 wants r, s, then the recovery id.
  const signature = new Uint8Array([...recovered.slice(1), recovered[0]!]);
  return bech32.encode(hrp, [...data, ...bech32.toWords(signature)], false);
}

/** 5-bit words into bytes, padding the last byte with zero bits (BOLT11's signing rule). */
function wordsToBytesPadded(words: number[]): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const w of words) {
    acc = (acc << 5) | w;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return new Uint8Array(out);
}

/** The node id (compressed public key, hex) of a secret key. */
export const nodeIdOf = (secretKey: Uint8Array) => Buffer.from(secp256k1.getPublicKey(secretKey, true)).toString("hex");
