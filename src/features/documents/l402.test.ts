// L402 macaroons (docs/decisions.md §125): minted, verified and refused without HTTP; the v2
// binary encoding written beside the package's (whose own export is unusable: see l402.ts).
import { describe, expect, test } from "bun:test";
import { importMacaroon, newMacaroon, type Macaroon } from "macaroon";
import { setup } from "../../../test/harness";
import { encodeV2, isL402, mintMacaroon, parseL402, verifyMacaroon } from "./l402";

const h = setup();
const HASH = "ab".repeat(32);
const DOC = "0190c0de-0000-7000-8000-000000000001";

describe("macaroons", () => {
  test("encodeV2 writes the package's v2 binary format byte for byte, and the package reads it back", () => {
    const m = newMacaroon({ identifier: new Uint8Array(66).fill(7), location: "http://localhost", rootKey: new Uint8Array(32).fill(1), version: 2 });
    m.addFirstPartyCaveat("document_id=x");
    expect(Buffer.from(encodeV2(m)).toString("hex")).toBe(Buffer.from(m.exportBinary()).toString("hex"));
    const back = importMacaroon(encodeV2(m)) as Macaroon;
    expect(Buffer.from(back.signature)).toEqual(Buffer.from(m.signature));
    expect(back.caveats.map((c) => new TextDecoder().decode(c.identifier))).toEqual(["document_id=x"]);
  });

  test("a minted macaroon: L402 identifier (version 0, the payment hash, a token id), verified for its document only", () => {
    const token = mintMacaroon(h.ctx, DOC, HASH);
    const m = importMacaroon(token) as Macaroon;
    expect(m.identifier.length).toBe(66);
    expect(Buffer.from(m.identifier.subarray(0, 2)).toString("hex")).toBe("0000");
    expect(Buffer.from(m.identifier.subarray(2, 34)).toString("hex")).toBe(HASH);
    expect(m.caveats.map((c) => new TextDecoder().decode(c.identifier))).toEqual([`document_id=${DOC}`, `payment_hash=${HASH}`]);
    expect(verifyMacaroon(h.ctx, token, DOC)).toBe(HASH);
    expect(verifyMacaroon(h.ctx, token, "another")).toBeNull();
    expect(mintMacaroon(h.ctx, DOC, HASH)).not.toBe(token);
  });

  test("refused: another instance's root key, a caveat whose hash disagrees with the identifier, an extra caveat, garbage", () => {
    const other = setup();
    expect(verifyMacaroon(h.ctx, mintMacaroon(other.ctx, DOC, HASH), DOC)).toBeNull();
    const m = importMacaroon(mintMacaroon(h.ctx, DOC, HASH)) as Macaroon;
    m.addFirstPartyCaveat("time<2099-01-01");
    expect(verifyMacaroon(h.ctx, Buffer.from(encodeV2(m)).toString("base64"), DOC)).toBeNull();
    expect(verifyMacaroon(h.ctx, "bm90IGEgbWFjYXJvb24=", DOC)).toBeNull();
    expect(verifyMacaroon(h.ctx, "", DOC)).toBeNull();
  });

  test("the Authorization header: L402 or LSAT, macaroon:preimage of 64 hex", () => {
    const pre = "cd".repeat(32);
    expect(parseL402(`L402 abc+/=:${pre}`)).toEqual({ macaroon: "abc+/=", preimage: pre });
    expect(parseL402(`LSAT abc:${pre.toUpperCase()}`)).toEqual({ macaroon: "abc", preimage: pre });
    expect(parseL402(`L402 abc:${pre.slice(2)}`)).toBeNull();
    expect(parseL402(`Bearer abc`)).toBeNull();
    expect(parseL402(null)).toBeNull();
    expect(isL402("L402 anything")).toBe(true);
    expect(isL402("Bearer x")).toBe(false);
  });
});
