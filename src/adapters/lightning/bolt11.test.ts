// Development invoices are well-formed BOLT11: a standard decoder reads back every field, and the
// signature recovers the wallet's node id.
import { describe, expect, test } from "bun:test";
import { decodeInvoice } from "@getalby/lightning-tools/bolt11";
import { sha256 } from "@noble/hashes/sha2.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bech32 } from "@scure/base";
import { encodeInvoice, nodeIdOf } from "./bolt11";

const key = secp256k1.utils.randomSecretKey();
const preimage = crypto.getRandomValues(new Uint8Array(32));
const hash = sha256(preimage);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("BOLT11 encoding", () => {
  test.each([21, 1, 1234, 100_000_000])("%d sats: decodes to the same amount, hash, description, expiry and time", (sats) => {
    const pr = encodeInvoice({ amountMsat: sats * 1000, paymentHash: hash, paymentSecret: new Uint8Array(32).fill(7), description: "[development wallet] Order #1 ✓", expirySeconds: 3600, timestamp: 1_790_000_000 }, key);
    expect(pr.startsWith("lnbcrt")).toBe(true);
    const d = decodeInvoice(pr)!;
    expect(d).not.toBeNull();
    expect(d.satoshi).toBe(sats);
    expect(d.paymentHash).toBe(hex(hash));
    expect(d.description).toBe("[development wallet] Order #1 ✓");
    expect(d.expiry).toBe(3600);
    expect(d.timestamp).toBe(1_790_000_000);
  });

  test("the signature recovers the wallet's node id over the prefix and the data", () => {
    const pr = encodeInvoice({ amountMsat: 21_000, paymentHash: hash, paymentSecret: new Uint8Array(32), description: "x", expirySeconds: 60, timestamp: 1_790_000_000 }, key);
    const { prefix, words } = bech32.decode(pr as `${string}1${string}`, false);
    const data = words.slice(0, -104);
    const sig = bech32.fromWords(words.slice(-104));
    // Pack the data words into bytes with zero padding, as the signer did.
    const bits = data.map((w) => w.toString(2).padStart(5, "0")).join("");
    const bytes = new Uint8Array(Math.ceil(bits.length / 8)).map((_, i) => parseInt(bits.slice(i * 8, i * 8 + 8).padEnd(8, "0"), 2));
    const digest = sha256(new Uint8Array([...new TextEncoder().encode(prefix), ...bytes]));
    const recovered = secp256k1.recoverPublicKey(new Uint8Array([sig[64]!, ...sig.slice(0, 64)]), digest, { prehash: false });
    expect(hex(secp256k1.Point.fromBytes(recovered).toBytes(true))).toBe(nodeIdOf(key));
  });

  test("refuses amounts that are not whole satoshis", () => {
    expect(() => encodeInvoice({ amountMsat: 1500, paymentHash: hash, paymentSecret: hash, description: "", expirySeconds: 60, timestamp: 1 }, key)).toThrow();
  });
});
