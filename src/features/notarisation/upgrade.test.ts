// The upgrade task (docs/decisions.md §92): proof_state recorded → included → anchored as the
// local calendar's commitment moves through its states, driven by the test clock; the schedule of
// checks, a calendar that is down, giving up, and the switch.
import { afterAll, describe, expect, test } from "bun:test";
import { proofFacts } from "../../adapters/timestamp/calendar";
import { parseDetached, toHex } from "../../adapters/timestamp/ots";
import { HOUR, MINUTE, DAY } from "../../core/clock";
import { setup, type Harness } from "../../../test/harness";
import { startCalendar, type TestCalendar } from "../../../test/ots-calendar";
import { post } from "../posts/fixtures";
import { UPGRADE_TASK } from "./upgrade";

const calendars: TestCalendar[] = [];
afterAll(() => calendars.forEach((c) => c.stop()));
const calendar = (opts: { height?: number } = {}) => {
  const c = startCalendar(opts);
  calendars.push(c);
  return c;
};

function harness(urls: string[]) {
  return setup({ notarisation: { enabled: true, calendars: urls, timeoutMs: 1000, allowPrivate: true }, rateLimitMultiplier: 0 });
}

async function notarisedPost(h: Harness) {
  const u = await h.user();
  const p = await post(h, u);
  const r = await h.req("POST", `/api/v1/posts/${p.id}/notarise`, { token: u.token });
  if (r.status !== 201) throw new Error(`notarise failed: ${r.status} ${r.text}`);
  return r.body;
}

const record = async (h: Harness, id: string) => (await h.req("GET", `/api/v1/posts/${id}/notarisation`)).body;
const proofOf = async (h: Harness, id: string) => new Uint8Array(await (await h.app.handle(new Request(`http://localhost/api/v1/posts/${id}/notarisation/proof`))).arrayBuffer());
const nextCheck = (h: Harness, id: string) => (h.ctx.db.$client.query("select next_check_at as at, checks from notarisations where subject_id = ?").get(id) as { at: number | null; checks: number });
const run = (h: Harness) => h.ctx.jobs.runRecurring(UPGRADE_TASK);
const isoAt = (ms: number) => new Date(ms).toISOString();

describe("the notarisation-upgrade task", () => {
  test("recorded, then included when the calendar merges it, then anchored when Bitcoin confirms it", async () => {
    const cal = calendar();
    const h = harness([cal.url]);
    const rec = await notarisedPost(h);
    const t0 = h.clock.now();
    const first = await proofOf(h, rec.subject_id);

    // Nothing is due for the first 10 minutes.
    h.clock.advance(9 * MINUTE);
    await run(h);
    expect(cal.asked.length).toBe(0);

    h.clock.advance(1 * MINUTE);
    await run(h);
    expect(cal.asked.length).toBe(1);
    let now = await record(h, rec.subject_id);
    expect(now).toMatchObject({ proof_state: "recorded", proof_observed_at: isoAt(t0), bitcoin_block_height: null });
    expect(now.proof_note).toMatch(/have not committed it to Bitcoin yet/);
    expect(nextCheck(h, rec.subject_id)).toEqual({ at: h.clock.now() + 30 * MINUTE, checks: 1 });
    expect(await proofOf(h, rec.subject_id)).toEqual(first);

    cal.advance("merged");
    h.clock.advance(30 * MINUTE);
    await run(h);
    now = await record(h, rec.subject_id);
    expect(now).toMatchObject({ proof_state: "included", proof_observed_at: isoAt(h.clock.now()), bitcoin_block_height: null });
    expect(now.proof_note).toMatch(/merged the digest/);
    const included = await proofOf(h, rec.subject_id);
    expect(included.byteLength).toBeGreaterThan(first.byteLength);
    const parsed = parseDetached(included);
    expect(toHex(parsed.timestamp.msg)).toBe(rec.payload_hash);
    expect(proofFacts(parsed.timestamp).bitcoinHeights).toEqual([]);

    // Another check without news keeps included and its instant.
    const includedAt = now.proof_observed_at;
    h.clock.advance(HOUR);
    await run(h);
    expect(await record(h, rec.subject_id)).toMatchObject({ proof_state: "included", proof_observed_at: includedAt });

    cal.advance("anchored");
    h.clock.advance(2 * HOUR);
    await run(h);
    now = await record(h, rec.subject_id);
    expect(now).toMatchObject({ proof_state: "anchored", proof_observed_at: isoAt(h.clock.now()), bitcoin_block_height: 840_000 });
    expect(now.establishes).toMatch(/no later than Bitcoin block 840000/);
    expect(now.proof_note).toMatch(/not checked against a Bitcoin node/);
    const anchored = parseDetached(await proofOf(h, rec.subject_id));
    expect(toHex(anchored.timestamp.msg)).toBe(rec.payload_hash);
    expect(proofFacts(anchored.timestamp)).toEqual({ pending: [cal.url], bitcoinHeights: [840_000] });

    // Anchored is final: no more checks.
    expect(nextCheck(h, rec.subject_id).at).toBeNull();
    const asked = cal.asked.length;
    h.clock.advance(DAY);
    await run(h);
    expect(cal.asked.length).toBe(asked);
  });

  test("recorded straight to anchored (the public calendars' usual path), keeping the lowest height", async () => {
    const [a, b] = [calendar({ height: 840_010 }), calendar({ height: 840_002 })];
    const h = harness([a.url, b.url]);
    const rec = await notarisedPost(h);
    a.advance("anchored");
    b.advance("anchored");
    h.clock.advance(10 * MINUTE);
    await run(h);
    expect(await record(h, rec.subject_id)).toMatchObject({ proof_state: "anchored", bitcoin_block_height: 840_002 });
  });

  test("a calendar that is down at check time: the state stays, the note says so, a later check follows", async () => {
    const cal = calendar();
    const h = harness([cal.url]);
    const rec = await notarisedPost(h);
    cal.stop();
    h.clock.advance(10 * MINUTE);
    await run(h);
    const now = await record(h, rec.subject_id);
    expect(now).toMatchObject({ proof_state: "recorded", proof_observed_at: rec.proof_observed_at });
    expect(now.proof_note).toContain(`1 calendar(s) did not answer: ${cal.url}`);
    expect(nextCheck(h, rec.subject_id)).toEqual({ at: h.clock.now() + 30 * MINUTE, checks: 1 });
  });

  test("the checks widen: 10 minutes, then 30 minutes, 1, 2 and every 3 hours; 30 days on they stop", async () => {
    const cal = calendar();
    const h = harness([cal.url]);
    const rec = await notarisedPost(h);
    const start = h.clock.now();
    const gaps: number[] = [];
    let last = start;
    for (let i = 0; i < 6; i++) {
      const at = nextCheck(h, rec.subject_id).at!;
      gaps.push(at - last);
      last = at;
      h.clock.set(at);
      await run(h);
    }
    expect(gaps).toEqual([10 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 3 * HOUR]);
    h.clock.set(start + 30 * DAY);
    await run(h);
    const now = await record(h, rec.subject_id);
    expect(now.proof_state).toBe("recorded");
    expect(now.proof_note).toMatch(/Not anchored after 30 days/);
    expect(nextCheck(h, rec.subject_id).at).toBeNull();
  });

  test("only calendars this server may ask are asked (the proof cannot send it elsewhere)", async () => {
    const cal = calendar();
    const h = harness([cal.url]);
    const rec = await notarisedPost(h);
    h.ctx.config.notarisation.calendars = ["https://calendar.example"];
    h.clock.advance(10 * MINUTE);
    await run(h);
    expect(cal.asked.length).toBe(0);
    expect((await record(h, rec.subject_id)).proof_note).toMatch(/None of the calendars named in the proof/);
  });

  test("switched off, the task asks nobody", async () => {
    const cal = calendar();
    const h = harness([cal.url]);
    await notarisedPost(h);
    h.ctx.config.notarisation.enabled = false;
    h.clock.advance(HOUR);
    await run(h);
    expect(cal.asked.length).toBe(0);
  });
});
