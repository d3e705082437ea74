// The OpenTimestamps codec: the reference implementation's serialisation vectors, round trips,
// merging, and refusals of malformed or oversized input.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  allAttestations,
  applyOp,
  findNode,
  fromHex,
  MAGIC,
  mergeTimestamp,
  newTimestamp,
  OP,
  OtsError,
  parseDetached,
  parseTimestamp,
  serializeDetached,
  serializeTimestamp,
  toHex,
  varuint,
  type Timestamp,
} from "./ots";

const enc = (s: string) => new TextEncoder().encode(s);
const cat = (...parts: (Uint8Array | number[])[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
/** A pending attestation item as the reference writes it (tag, payload length 7, URI length 6). */
const pending6 = (uri: string) => cat([0x00], fromHex("83dfe30d2ef90c8e" + "07" + "06"), enc(uri));
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

function stampWith(msg: Uint8Array, uris: string[]): Timestamp {
  const s = newTimestamp(msg);
  for (const uri of uris) s.attestations.push({ type: "pending", uri });
  return s;
}

describe("varuint", () => {
  test.each([
    [0, "00"],
    [1, "01"],
    [127, "7f"],
    [128, "8001"],
    [300, "ac02"],
    [840000, "c0a233"],
  ])("%d is %s", (n, hex) => {
    expect(toHex(varuint(n))).toBe(hex);
    // Read back through a Bitcoin attestation, whose payload is one varuint.
    const item = cat([0x00], fromHex("0588960d73d71901"), varuint(varuint(n).byteLength), varuint(n));
    expect(parseTimestamp(item, enc("m")).attestations).toEqual([{ type: "bitcoin", height: n }]);
  });

  test("negative and unsafe numbers are refused", () => {
    expect(() => varuint(-1)).toThrow(OtsError);
    expect(() => varuint(2 ** 60)).toThrow(OtsError);
  });
});

describe("timestamps: the reference implementation's vectors", () => {
  test("one, two and three pending attestations, sorted by URI, each but the last after 0xff", () => {
    const stamp = stampWith(enc("foo"), ["foobar"]);
    expect(serializeTimestamp(stamp)).toEqual(pending6("foobar"));
    stamp.attestations.push({ type: "pending", uri: "barfoo" });
    expect(serializeTimestamp(stamp)).toEqual(cat([0xff], pending6("barfoo"), pending6("foobar")));
    stamp.attestations.push({ type: "pending", uri: "foobaz" });
    const three = cat([0xff], pending6("barfoo"), [0xff], pending6("foobar"), pending6("foobaz"));
    expect(serializeTimestamp(stamp)).toEqual(three);
    expect(serializeTimestamp(parseTimestamp(three, enc("foo")))).toEqual(three);
  });

  test("attestations come before ops; an op's subtree follows its tag", () => {
    const stamp = stampWith(enc("foo"), ["barfoo", "foobar", "foobaz"]);
    const child = stampWith(applyOp({ tag: OP.sha256 }, enc("foo")), ["deeper"]);
    stamp.ops.push({ op: { tag: OP.sha256 }, stamp: child });
    const bytes = cat([0xff], pending6("barfoo"), [0xff], pending6("foobar"), [0xff], pending6("foobaz"), [0x08], pending6("deeper"));
    expect(serializeTimestamp(stamp)).toEqual(bytes);
    const back = parseTimestamp(bytes, enc("foo"));
    expect(toHex(back.ops[0].stamp.msg)).toBe(createHash("sha256").update("foo").digest("hex"));
    expect(serializeTimestamp(back)).toEqual(bytes);
  });

  test("an empty timestamp cannot be serialised", () => {
    expect(() => serializeTimestamp(newTimestamp(enc("foo")))).toThrow(OtsError);
  });

  test("an append whose result would pass 4096 bytes is refused; 4096 exactly is fine", () => {
    const bytes = cat([0xf0, 0x01, 0x00], pending6("barfoo"));
    expect(parseTimestamp(bytes, new Uint8Array(4095)).ops[0].stamp.msg.byteLength).toBe(4096);
    expect(() => parseTimestamp(bytes, new Uint8Array(4096))).toThrow(OtsError);
  });

  test("nesting past 256 levels is refused", () => {
    const deep = cat(new Array(256).fill(0x08), pending6("barfoo"));
    expect(() => parseTimestamp(deep, new Uint8Array(0))).toThrow(/nested too deeply/);
    expect(parseTimestamp(cat(new Array(255).fill(0x08), pending6("barfoo")), new Uint8Array(0)).ops.length).toBe(1);
  });

  test("ops: append, prepend, sha256, sha1, ripemd160, reverse, hexlify", () => {
    const m = enc("ab");
    expect(applyOp({ tag: OP.append, arg: enc("cd") }, m)).toEqual(enc("abcd"));
    expect(applyOp({ tag: OP.prepend, arg: enc("cd") }, m)).toEqual(enc("cdab"));
    expect(toHex(applyOp({ tag: OP.sha256 }, new Uint8Array(0)))).toBe(EMPTY_SHA256);
    expect(toHex(applyOp({ tag: OP.sha1 }, enc("a")))).toBe("86f7e437faa5a7fce15d1ddcb9eaeaea377667b8");
    expect(toHex(applyOp({ tag: OP.ripemd160 }, enc("a")))).toBe("0bdc9d2d256b3ee9daae347be6f4dc835a467ffe");
    expect(applyOp({ tag: OP.reverse }, m)).toEqual(enc("ba"));
    expect(applyOp({ tag: OP.hexlify }, m)).toEqual(enc("6162"));
    expect(() => applyOp({ tag: OP.keccak256 }, m)).toThrow(OtsError);
    expect(() => applyOp({ tag: OP.reverse }, new Uint8Array(0))).toThrow(OtsError);
  });

  test("unknown attestations (Litecoin, anything newer) are kept and written back unchanged", () => {
    const litecoin = cat([0x00], fromHex("06869a0d73d71b45"), [0x02], varuint(300));
    const stamp = parseTimestamp(litecoin, enc("m"));
    expect(stamp.attestations[0]).toMatchObject({ type: "unknown", tag: "06869a0d73d71b45" });
    expect(serializeTimestamp(stamp)).toEqual(litecoin);
  });

  test.each([
    ["an unknown op tag", cat([0x42], pending6("barfoo"))],
    ["a truncated attestation", cat([0x00], fromHex("83dfe30d2ef90c8e07"))],
    ["trailing bytes", cat(pending6("barfoo"), [0x00])],
    ["an empty append argument", cat([0xf0, 0x00], pending6("barfoo"))],
    ["a URI with a forbidden character", cat([0x00], fromHex("83dfe30d2ef90c8e" + "07" + "06"), enc("foo?ba"))],
    ["bytes after the URI inside the payload", cat([0x00], fromHex("83dfe30d2ef90c8e" + "08" + "06"), enc("foobar"), [0x01])],
    ["an attestation payload over 8192 bytes", cat([0x00], fromHex("83dfe30d2ef90c8e"), varuint(8193), new Uint8Array(8193))],
    ["nothing at all", new Uint8Array(0)],
  ])("%s is refused with OtsError", (_name, bytes) => {
    expect(() => parseTimestamp(bytes, enc("m"))).toThrow(OtsError);
  });
});

describe("merging", () => {
  test("merging unites attestations and ops, sharing common paths", () => {
    const digest = fromHex(EMPTY_SHA256);
    const fromA = parseTimestamp(cat([0xf0, 0x01, 0xaa, 0x08], pending6("calenA")), digest);
    const fromB = parseTimestamp(cat([0xf0, 0x01, 0xaa, 0x08], pending6("calenB")), digest);
    const fromC = parseTimestamp(cat([0xf1, 0x01, 0xbb], pending6("calenC")), digest);
    const tree = newTimestamp(digest);
    for (const t of [fromA, fromB, fromC]) mergeTimestamp(tree, t);
    expect(tree.ops.length).toBe(2);
    expect([...allAttestations(tree)].map((x) => (x.attestation as { uri: string }).uri).sort()).toEqual(["calenA", "calenB", "calenC"]);
    // Deterministic: the same tree in any merge order serialises to the same bytes.
    const other = newTimestamp(digest);
    for (const t of [fromC, fromB, fromA]) mergeTimestamp(other, t);
    expect(serializeTimestamp(other)).toEqual(serializeTimestamp(tree));
    expect(parseTimestamp(serializeTimestamp(tree), digest)).toEqual(parseTimestamp(serializeTimestamp(other), digest));
    expect(() => mergeTimestamp(tree, newTimestamp(enc("other")))).toThrow(OtsError);
  });

  test("findNode finds the node of a commitment anywhere in the tree", () => {
    const digest = fromHex(EMPTY_SHA256);
    const tree = parseTimestamp(cat([0xf0, 0x01, 0xaa, 0x08], pending6("calenA")), digest);
    const leaf = [...allAttestations(tree)][0].msg;
    expect(findNode(tree, leaf)?.attestations).toEqual([{ type: "pending", uri: "calenA" }]);
    expect(findNode(tree, enc("absent"))).toBeNull();
  });
});

describe("detached files", () => {
  test("the reference's vector: magic, version 1, sha256, digest, timestamp", () => {
    const bytes = cat(MAGIC, [0x01, 0x08], fromHex(EMPTY_SHA256), pending6("foobar"));
    expect(serializeDetached(stampWith(fromHex(EMPTY_SHA256), ["foobar"]))).toEqual(bytes);
    const back = parseDetached(bytes);
    expect(back.fileHashOp).toBe(OP.sha256);
    expect(toHex(back.timestamp.msg)).toBe(EMPTY_SHA256);
    expect(back.timestamp.attestations).toEqual([{ type: "pending", uri: "foobar" }]);
  });

  test.each([
    ["no bytes", new Uint8Array(0)],
    ["bad magic", cat(enc("\0Not a OpenTimestamps Proof \0"), [0xbf, 0x89, 0xe2, 0xe8, 0x84, 0xe8, 0x92, 0x94, 0x01])],
    ["major version 0", cat(MAGIC, [0x00])],
    ["an unknown file hash op", cat(MAGIC, [0x01, 0x42], new Uint8Array(32), pending6("foobar"))],
    ["trailing garbage", cat(MAGIC, [0x01, 0x08], fromHex(EMPTY_SHA256), pending6("foobar"), enc("trailing garbage"))],
  ])("%s is refused", (_name, bytes) => {
    expect(() => parseDetached(bytes)).toThrow(OtsError);
  });

  test("a digest of the wrong length for the hash op is refused", () => {
    expect(() => serializeDetached(stampWith(new Uint8Array(20), ["foobar"]))).toThrow(OtsError);
  });
});

describe("untrusted input", () => {
  test("random corruptions of a valid proof either parse or throw OtsError, nothing else", () => {
    const digest = fromHex(EMPTY_SHA256);
    const valid = serializeDetached(parseTimestamp(cat([0xff, 0xf0, 0x01, 0xaa, 0x08], pending6("calenA"), [0xf1, 0x02, 0xbb, 0xcc], [0x00], fromHex("0588960d73d71901"), [0x03], varuint(840000)), digest));
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let i = 0; i < 2000; i++) {
      const bytes = valid.slice(0, rand(4) === 0 ? rand(valid.byteLength) : valid.byteLength);
      for (let k = 0; k <= rand(3); k++) if (bytes.byteLength) bytes[rand(bytes.byteLength)] = rand(256);
      try {
        parseDetached(bytes);
      } catch (err) {
        expect(err).toBeInstanceOf(OtsError);
      }
    }
  });
});
