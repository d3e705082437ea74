// The canonical document's encoding: byte for byte Python's
// json.dumps(doc, sort_keys=True, separators=(",", ":")), as the record's `recompute` says.
import { expect, test } from "bun:test";
import { canonicalJson, contentMatches, sha256Hex } from "./canonical";

test("sorted keys, no whitespace, non-ASCII and DEL escaped in lower-case hex, astral characters as surrogate pairs", () => {
  // python3 -c 'import json; print(json.dumps({"b": 1, "a": "é😀\x01\"/\x7f\n\t", "c": None}, sort_keys=True, separators=(",", ":")))'
  expect(canonicalJson({ b: 1, a: 'é😀\u0001"/\u007f\n\t', c: null })).toBe('{"a":"\\u00e9\\ud83d\\ude00\\u0001\\"/\\u007f\\n\\t","b":1,"c":null}');
  expect(canonicalJson({ z: "plain", y: 0 })).toBe('{"y":0,"z":"plain"}');
});

test("served content matches the digests until it changes", () => {
  const doc = { title_sha256: sha256Hex("T"), body_sha256: sha256Hex("B") };
  expect(contentMatches(doc, { title: "T", body: "B" })).toBe(true);
  expect(contentMatches(doc, { title: "T", body: "[deleted]" })).toBe(false);
  expect(contentMatches({ body_sha256: sha256Hex("B") }, { body: "B" })).toBe(true);
});
