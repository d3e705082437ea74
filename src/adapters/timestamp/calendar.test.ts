// The calendar client against local calendars on 127.0.0.1 (test/ots-calendar.ts): submission to
// several at once with one down and one slow, the merged proof parsed back, upgrades through the
// calendar's states, and the whitelist of calendars a proof may send us to.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { downCalendar, startCalendar } from "../../../test/ots-calendar";
import { proofFacts, submitDigest, submitToCalendars, upgradeAllowed, upgradeProof } from "./calendar";
import { allAttestations, parseDetached, serializeDetached, toHex } from "./ots";

const good = startCalendar();
const other = startCalendar({ height: 840_001 });
const slow = startCalendar({ delayMs: 1500 });
const broken = startCalendar({ garbage: true });
afterAll(() => [good, other, slow, broken].forEach((c) => c.stop()));
const opts = { allowPrivate: true, timeoutMs: 300 };
const digest = () => Uint8Array.from(createHash("sha256").update(String(Math.random())).digest());

describe("submission", () => {
  test("one calendar: the answer is a timestamp for the digest ending in its pending attestation", async () => {
    const d = digest();
    const r = await submitDigest(good.url, d, opts);
    if (!r.ok) throw new Error(r.error);
    expect(good.digests).toContain(toHex(d));
    expect([...allAttestations(r.timestamp)].map((a) => a.attestation)).toEqual([{ type: "pending", uri: good.url }]);
  });

  test("several calendars: a fork per calendar; down, slow (timed out) and garbage ones count as failed", async () => {
    const d = digest();
    const down = downCalendar();
    const started = performance.now();
    const r = await submitToCalendars([good.url, down, slow.url, broken.url, other.url], d, opts);
    expect(performance.now() - started).toBeLessThan(1400);
    expect(r.accepted).toEqual([good.url, other.url]);
    expect(r.failed.map((f) => f.calendar)).toEqual([down, slow.url, broken.url]);
    expect(r.failed[1].error).toMatch(/timed out/);
    expect(r.failed[2].error).toMatch(/not a timestamp/);
    const proof = serializeDetached(r.timestamp!);
    const back = parseDetached(proof);
    expect(back.timestamp.msg).toEqual(d);
    expect(back.timestamp.ops.length).toBe(2);
    expect(proofFacts(back.timestamp)).toEqual({ pending: [good.url, other.url].sort(), bitcoinHeights: [] });
  });

  test("all down: no timestamp", async () => {
    const r = await submitToCalendars([downCalendar(), broken.url], digest(), opts);
    expect(r).toMatchObject({ timestamp: null, accepted: [] });
    expect(r.failed.length).toBe(2);
  });

  test("without the allowance a loopback calendar is refused before any request", async () => {
    const before = good.digests.length;
    const r = await submitDigest(good.url, digest(), { allowPrivate: false, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false });
    expect(good.digests.length).toBe(before);
  });
});

describe("upgrade", () => {
  test("pending, then merged (a timestamp, no Bitcoin), then anchored (a Bitcoin attestation)", async () => {
    const d = digest();
    const sub = await submitToCalendars([good.url, other.url], d, opts);
    const calendars = [good.url, other.url];
    let proof = serializeDetached(sub.timestamp!);

    const pending = await upgradeProof(proof, calendars, opts);
    expect(pending.merged).toBe(false);
    expect(pending.proof).toEqual(proof);
    expect(pending.answers.map((a) => a.kind)).toEqual(["not_yet", "not_yet"]);
    expect(pending.answers[0]).toMatchObject({ message: "Pending confirmation in Bitcoin blockchain" });

    good.advance("merged");
    const merged = await upgradeProof(proof, calendars, opts);
    expect(merged.merged).toBe(true);
    expect(merged.facts.bitcoinHeights).toEqual([]);
    expect(merged.proof.byteLength).toBeGreaterThan(proof.byteLength);
    proof = merged.proof;

    good.advance("anchored");
    other.advance("anchored");
    const anchored = await upgradeProof(proof, calendars, opts);
    expect(anchored.facts.bitcoinHeights).toEqual([840_000, 840_001]);
    // The upgraded proof still parses, and holds both calendars' pending promises besides.
    const back = parseDetached(anchored.proof);
    expect(proofFacts(back.timestamp)).toEqual(anchored.facts);
    expect(back.timestamp.msg).toEqual(d);
  });

  test("a calendar answering garbage leaves the proof as it was", async () => {
    const d = digest();
    const sub = await submitToCalendars([good.url], d, opts);
    const proof = serializeDetached(sub.timestamp!);
    good.advance("merged");
    good.garbage = true;
    try {
      const r = await upgradeProof(proof, [good.url], opts);
      expect(r).toMatchObject({ merged: false, proof });
      expect(r.answers[0].kind).toBe("error");
    } finally {
      good.garbage = false;
    }
  });

  test("only configured calendars and the public calendars' hosts are asked", async () => {
    const d = digest();
    const sub = await submitToCalendars([good.url], d, opts);
    const asked = good.asked.length;
    const r = await upgradeProof(serializeDetached(sub.timestamp!), ["https://elsewhere.example"], opts);
    expect(r.answers).toEqual([]);
    expect(good.asked.length).toBe(asked);
  });

  test.each([
    ["https://alice.btc.calendar.opentimestamps.org", true],
    ["https://finney.calendar.eternitywall.com", true],
    ["https://btc.calendar.catallaxy.com", true],
    ["http://alice.btc.calendar.opentimestamps.org", false],
    ["https://alice.btc.calendar.opentimestamps.org:8443", false],
    ["https://alice.btc.calendar.opentimestamps.org/x", false],
    ["https://calendar.opentimestamps.org.evil.example", false],
    ["https://169.254.169.254", false],
    ["https://a.pool.opentimestamps.org", true],
    ["https://a.pool.opentimestamps.org/sub", false],
    ["not a url", false],
  ])("upgradeAllowed(%s) is %s", (uri, allowed) => {
    expect(upgradeAllowed(uri, ["https://a.pool.opentimestamps.org"])).toBe(allowed);
  });
});
