// The session store: expiry on the injected clock, least-recently-used eviction, ending and forgetting.
import { describe, expect, test } from "bun:test";
import { TestClock } from "../../core/clock";
import { SessionStore } from "./sessions";

class Fake {
  closed = 0;
  async close() {
    this.closed++;
  }
}

describe("SessionStore", () => {
  test("a session unused for idleMs is gone, and closed", () => {
    const clock = new TestClock();
    const store = new SessionStore<Fake>(clock, 1000, 10);
    const s = new Fake();
    store.add("a", s);
    clock.advance(999);
    expect(store.get("a")).toBe(s);
    clock.advance(999);
    expect(store.get("a")).toBe(s); // each use restarts the idle time
    clock.advance(1000);
    expect(store.get("a")).toBeUndefined();
    expect(s.closed).toBe(1);
    expect(store.size).toBe(0);
  });

  test("when full, the least recently used session is closed to make room", () => {
    const clock = new TestClock();
    const store = new SessionStore<Fake>(clock, 60_000, 2);
    const [a, b, c] = [new Fake(), new Fake(), new Fake()];
    store.add("a", a);
    clock.advance(1);
    store.add("b", b);
    clock.advance(1);
    store.get("a"); // a is now the most recently used
    store.add("c", c);
    expect(b.closed).toBe(1);
    expect(store.get("b")).toBeUndefined();
    expect(store.get("a")).toBe(a);
    expect(store.get("c")).toBe(c);
  });

  test("sweep closes every expired session and keeps the live ones", () => {
    const clock = new TestClock();
    const store = new SessionStore<Fake>(clock, 1000, 10);
    const old = [new Fake(), new Fake()];
    store.add("o1", old[0]);
    store.add("o2", old[1]);
    clock.advance(500);
    const live = new Fake();
    store.add("l", live);
    clock.advance(600);
    expect(store.sweep()).toBe(2);
    expect(old.map((s) => s.closed)).toEqual([1, 1]);
    expect(live.closed).toBe(0);
    expect(store.size).toBe(1);
  });

  test("end closes and drops a session that ended elsewhere; an id not held is a no-op", () => {
    const store = new SessionStore<Fake>(new TestClock(), 1000, 10);
    const s = new Fake();
    store.add("x", s);
    store.end("x");
    store.end("unknown");
    expect(s.closed).toBe(1);
    expect(store.get("x")).toBeUndefined();
    expect(store.size).toBe(0);
  });

  test("forget drops a session that ended by itself without closing it again", () => {
    const store = new SessionStore<Fake>(new TestClock(), 1000, 10);
    const s = new Fake();
    store.add("x", s);
    store.forget("x");
    expect(store.get("x")).toBeUndefined();
    expect(s.closed).toBe(0);
  });
});
