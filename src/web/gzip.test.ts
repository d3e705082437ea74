// A page sent as one gzip member around a middle compressed once (docs/decisions.md §181): any
// gzip reader gets the page back, its CRC-32 and length checked.
import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { gzipAround, keptPiece, Spliced } from "./gzip";

const decoder = new TextDecoder();
const middle = Array.from({ length: 400 }, (_, i) => `<article id="c${i}"><p>Comment ${i} — naïve café ☕ 🐜</p></article>`).join("");

describe("gzipAround", () => {
  test.each([
    ["head, middle and tail", "<!doctype html><html><body><h1>Ünïcödé ✓</h1>", middle, "</body></html>"],
    ["an empty head and tail", "", middle, ""],
    ["an empty middle", "<p>before</p>", "", "<p>after</p>"],
  ])("%s: node's and Bun's gunzip give the page back, checking its CRC-32 and length", (_, head, mid, tail) => {
    const bytes = gzipAround(head, keptPiece(mid), tail);
    expect(decoder.decode(gunzipSync(bytes))).toBe(head + mid + tail);
    expect(decoder.decode(Bun.gunzipSync(bytes))).toBe(head + mid + tail);
  });

  test("the kept middle is sent as it was compressed, once for every answer", () => {
    const piece = keptPiece(middle);
    const a = gzipAround("<p>for ann</p>", piece, "<p>a</p>");
    const b = gzipAround("<p>for someone else entirely</p>", piece, "<p>b</p>");
    const inside = (outer: Uint8Array) => Buffer.from(outer).indexOf(Buffer.from(piece.deflated)) > 0;
    expect(inside(a) && inside(b)).toBe(true);
    // Kept at a higher level than a page compressed for one answer.
    expect(piece.deflated.byteLength).toBeLessThan(Bun.gzipSync(middle, { level: 1 }).byteLength);
  });

  test("a damaged answer is refused by gunzip (the trailer is checked)", () => {
    const bytes = gzipAround("<p>head</p>", keptPiece(middle), "<p>tail</p>");
    bytes[bytes.length - 6] ^= 0xff; // the CRC-32
    expect(() => gunzipSync(bytes)).toThrow();
  });

  test("Spliced.html is the page in one string", () => {
    const s = new Spliced("<a>", { html: "<b>", piece: () => keptPiece("<b>") }, "<c>");
    expect(s.html).toBe("<a><b><c>");
  });
});
