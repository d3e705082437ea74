// A self-signed TLS certificate made in-process, for tests that run a local HTTPS server on
// 127.0.0.1 (no openssl binary, no files): an ECDSA P-256 key, and an X.509 v3 certificate naming
// the given host in its subject and subjectAltName, valid from an hour ago for a day, DER-encoded
// by hand and signed with the key. Trust it by passing `cert` as the client's CA.
import { generateKeyPairSync, sign } from "node:crypto";

const length = (n: number): number[] => {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v >>= 8) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const tlv = (tag: number, body: Uint8Array | number[]) => {
  const b = body instanceof Uint8Array ? body : Uint8Array.from(body);
  return concat(Uint8Array.from([tag, ...length(b.length)]), b);
};
const seq = (...parts: Uint8Array[]) => tlv(0x30, concat(...parts));
const ascii = (s: string) => Uint8Array.from(Buffer.from(s, "ascii"));
function oid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * a + b];
  for (const n of rest) {
    const enc = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) enc.unshift(0x80 | (v & 0x7f));
    bytes.push(...enc);
  }
  return tlv(0x06, bytes);
}
const utcTime = (d: Date) => tlv(0x17, ascii(`${d.toISOString().replace(/[-:T]/g, "").slice(2, 14)}Z`));
const commonName = (cn: string) => seq(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0c, Uint8Array.from(Buffer.from(cn))))));

export function selfSignedCert(host: string): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const ecdsaWithSha256 = seq(oid("1.2.840.10045.4.3.2"));
  const now = Date.now();
  const subjectAltName = seq(oid("2.5.29.17"), tlv(0x04, seq(tlv(0x82, ascii(host)))));
  const tbs = seq(
    tlv(0xa0, tlv(0x02, [2])), // v3
    tlv(0x02, [0x01, 0x5e, 0xed]), // serial number
    ecdsaWithSha256,
    commonName(host), // issuer
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    commonName(host), // subject
    new Uint8Array(publicKey.export({ type: "spki", format: "der" })),
    tlv(0xa3, seq(subjectAltName)),
  );
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, concat(Uint8Array.from([0]), new Uint8Array(sign("sha256", tbs, privateKey)))));
  const base64 = Buffer.from(der).toString("base64").match(/.{1,64}/g)!.join("\n");
  return { cert: `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`, key: privateKey.export({ type: "pkcs8", format: "pem" }) as string };
}
