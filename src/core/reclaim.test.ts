// The reclaimer's rule, driven with made-up CPU readings on a made-up clock (no timers, no load).
import { describe, expect, test } from "bun:test";
import { BUSY_SHARE, IDLE_SHARE, Reclaimer, RECLAIM_INTERVAL_MS, SHRINK_AFTER_IDLE_MS, type ReleaseLevel } from "./reclaim";

/** Each step is one interval in which `share` of a core was used; returns what was released. */
function harness() {
  let cpu = 0;
  let now = 0;
  const released: ReleaseLevel[] = [];
  const r = new Reclaimer({ cpuMicros: () => cpu, nowMs: () => now, release: (level) => void released.push(level) });
  const step = (share: number) => {
    cpu += share * RECLAIM_INTERVAL_MS * 1000;
    now += RECLAIM_INTERVAL_MS;
    return r.tick();
  };
  /** Idle intervals for `ms`; returns what they released. */
  const idle = (ms: number) => Array.from({ length: Math.ceil(ms / RECLAIM_INTERVAL_MS) }, () => step(0)).filter((x) => x !== null);
  return { step, idle, released };
}

describe("Reclaimer", () => {
  test("a burst's end releases the caches, and a long quiet after it the compiled code, once each", () => {
    const h = harness();
    expect([h.step(1.5), h.step(1.9), h.step(0.5)]).toEqual([null, null, null]);
    expect(h.step(0)).toBe("caches");
    expect(h.idle(SHRINK_AFTER_IDLE_MS - 2 * RECLAIM_INTERVAL_MS)).toEqual([]);
    expect(h.idle(2 * RECLAIM_INTERVAL_MS)).toEqual(["code"]);
    expect(h.idle(10 * SHRINK_AFTER_IDLE_MS)).toEqual([]);
    expect(h.released).toEqual(["caches", "code"]);
  });

  test("the start counts as a burst: the first quiet interval releases the caches, a long quiet the code", () => {
    const h = harness();
    expect(h.step(0)).toBe("caches");
    expect(h.idle(SHRINK_AFTER_IDLE_MS - 2 * RECLAIM_INTERVAL_MS)).toEqual([]);
    expect(h.idle(2 * RECLAIM_INTERVAL_MS)).toEqual(["code"]);
    expect(h.idle(10 * SHRINK_AFTER_IDLE_MS)).toEqual([]);
  });

  test("nothing is released during a burst, nor in a server that stays idle or lightly used after its start", () => {
    const h = harness();
    for (let i = 0; i < 20; i++) h.step(1);
    const quiet = harness();
    quiet.idle(3 * SHRINK_AFTER_IDLE_MS);
    expect(quiet.released).toEqual(["caches", "code"]);
    quiet.released.length = 0;
    quiet.idle(3 * SHRINK_AFTER_IDLE_MS);
    for (let i = 0; i < 50; i++) quiet.step((BUSY_SHARE + IDLE_SHARE) / 2);
    expect([h.released, quiet.released]).toEqual([[], []]);
  });

  test("light use after a burst waits for a quiet interval, and restarts the wait for the code", () => {
    const h = harness();
    h.step(1);
    expect([h.step(IDLE_SHARE * 2), h.step(IDLE_SHARE * 2)]).toEqual([null, null]);
    expect(h.step(IDLE_SHARE / 2)).toBe("caches");
    h.idle(SHRINK_AFTER_IDLE_MS / 2);
    h.step(IDLE_SHARE * 2); // a few requests: not idle, not a burst
    expect(h.idle(SHRINK_AFTER_IDLE_MS - 2 * RECLAIM_INTERVAL_MS)).toEqual([]);
    expect(h.idle(2 * RECLAIM_INTERVAL_MS)).toEqual(["code"]);
  });

  test("a new burst before the code is dropped starts over", () => {
    const h = harness();
    h.step(1);
    h.step(0);
    h.step(BUSY_SHARE);
    expect(h.step(0)).toBe("caches");
    expect(h.released).toEqual(["caches", "caches"]);
  });
});
