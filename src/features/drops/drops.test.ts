// Dead drops (spec Part 3 §4.11): the karma gate, expiry (24h, 48h, 7d; deprecated names), the
// signal toggle (not on your own), delete (404 for missing and not yours alike), and the proof
// that the author never leaks: every route as every kind of caller, the OpenAPI schemas, the log
// lines, the events and webhook outbox.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type Harness } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { createLogger } from "../../core/log";

const h = setup({ logLevel: "debug" });
const logLines: string[] = [];
h.ctx.log = createLogger("debug", () => h.clock.now(), (chunk) => void logLines.push(...chunk.split("\n").filter(Boolean)));
type U = Awaited<ReturnType<Harness["user"]>>;

const fresh = h.fresh;
const leave = async (u: U, body: Record<string, unknown> = {}) => {
  const r = await h.req("POST", "/api/v1/dead-drops", { token: u.token, body: { body: "The key is under the mat.", ...body } });
  expect(r.status).toBe(201);
  return r.body;
};

describe("dead drops", () => {
  test("create answers the drop without an author; body and its deprecated copy content", async () => {
    const a = await h.user({ karma: 10 });
    const d = await leave(a, { tags: ["#Secrets", "x"], duration: "48h" });
    expect(d).toEqual({
      id: expect.any(String),
      body: "The key is under the mat.",
      content: "The key is under the mat.",
      tags: ["secrets", "x"],
      signal_count: 0,
      expires_at: new Date(h.clock.now() + 2 * DAY).toISOString(),
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect((await leave(a, { body: "forever" })).expires_at).toBeNull();
  });

  test("the deprecated names content and expires_in work, and flag themselves; both spellings disagreeing is 400", async () => {
    const a = await h.user({ karma: 10 });
    const r = await h.req("POST", "/api/v1/dead-drops", { token: a.token, body: { content: "old spelling", expires_in: "7d" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ body: "old spelling", expires_at: new Date(h.clock.now() + 7 * DAY).toISOString() });
    expect(r.headers.get("x-colony-deprecated-body-fields")).toBe("content=body, expires_in=duration");
    const both = await h.req("POST", "/api/v1/dead-drops", { token: a.token, body: { content: "a", body: "b" } });
    expect([both.status, both.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
  });

  test("karma below 10 is 403 KARMA_TOO_LOW; bad input is 4xx; neither leaves anything", async () => {
    const low = await h.user({ karma: 9 });
    const ok = await h.user({ karma: 10 });
    const before = dbState(h);
    const r = await h.req("POST", "/api/v1/dead-drops", { token: low.token, body: { body: "hello" } });
    expect([r.status, r.body.detail.code]).toEqual([403, "KARMA_TOO_LOW"]);
    for (const body of [{ body: "" }, { body: "x".repeat(2001) }, { body: "x", duration: "1d" }, { body: "x", tags: ["a", "b", "c", "d", "e", "f"] }, { body: "   " }]) {
      const x = await h.req("POST", "/api/v1/dead-drops", { token: ok.token, body });
      expect(x.status).toBeGreaterThanOrEqual(400);
      expect(x.status).toBeLessThan(500);
    }
    expect(dbState(h)).toEqual(before);
    expect((await h.req("POST", "/api/v1/dead-drops", { body: { body: "x" } })).status).toBe(401);
  });

  test("expiry: an expired drop leaves the list and reads 404 like a missing one; the sweep deletes it", async () => {
    const a = await h.user({ karma: 10 });
    const d = await leave(a, { duration: "24h" });
    const inList = async () => (await h.req("GET", "/api/v1/dead-drops", { query: { limit: 100 } })).body.items.some((x: any) => x.id === d.id);
    expect(await inList()).toBe(true);
    h.clock.advance(DAY - 1);
    expect((await h.req("GET", `/api/v1/dead-drops/${d.id}`)).status).toBe(200);
    h.clock.advance(1);
    expect(await inList()).toBe(false);
    const gone = await h.req("GET", `/api/v1/dead-drops/${d.id}`);
    const missing = await h.req("GET", `/api/v1/dead-drops/${crypto.randomUUID()}`);
    expect([gone.status, gone.body]).toEqual([404, { detail: { code: "NOT_FOUND", message: expect.any(String) } }]);
    expect(gone.body).toEqual(missing.body);
    await h.ctx.jobs.runRecurring("purge-dead-drops");
    expect(h.ctx.db.$client.query("select count(*) n from dead_drops where id = ?").get(d.id)).toEqual({ n: 0 });
  });

  test("signal toggles; your own drop is 400; sort=signals orders by the count", async () => {
    const [a, b, c] = [await h.user({ karma: 10 }), await h.user(), await h.user()];
    const tag = `t${Math.random().toString(36).slice(2, 8)}`;
    const quiet = await leave(a, { tags: [tag] });
    h.clock.advance(1000);
    const loud = await leave(a, { tags: [tag] });
    h.clock.advance(1000);
    const newest = await leave(a, { tags: [tag] });
    const signal = (u: U, id: string) => h.req("POST", `/api/v1/dead-drops/${id}/signal`, { token: u.token });
    expect((await signal(b, loud.id)).body).toEqual({ drop_id: loud.id, signal_count: 1, signaled: true });
    expect((await signal(c, loud.id)).body).toEqual({ drop_id: loud.id, signal_count: 2, signaled: true });
    expect((await signal(b, quiet.id)).body.signal_count).toBe(1);
    expect((await signal(b, quiet.id)).body).toEqual({ drop_id: quiet.id, signal_count: 0, signaled: false });
    const own = await signal(a, loud.id);
    expect([own.status, own.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const ids = async (sort?: string) => (await h.req("GET", "/api/v1/dead-drops", { query: sort ? { tag, sort } : { tag } })).body.items.map((x: any) => x.id);
    expect(await ids()).toEqual([newest.id, loud.id, quiet.id]);
    expect(await ids("signals")).toEqual([loud.id, newest.id, quiet.id]);
    expect((await signal(b, crypto.randomUUID())).status).toBe(404);
  });

  test("signals are rate limited (drop_signal, 20 an hour for a Newcomer)", async () => {
    const [a, b] = [await h.user({ karma: 10 }), await h.user()];
    const d = await leave(a);
    for (let i = 0; i < 20; i++) expect((await h.req("POST", `/api/v1/dead-drops/${d.id}/signal`, { token: b.token })).status).toBe(200);
    expect((await h.req("POST", `/api/v1/dead-drops/${d.id}/signal`, { token: b.token })).status).toBe(429);
  });

  test("three a day, scaled by trust level: a Member (karma 10, 1.5x) leaves four, the fifth is 429", async () => {
    const a = await h.user({ karma: 10 });
    for (let i = 0; i < 4; i++) await leave(a);
    expect((await h.req("POST", "/api/v1/dead-drops", { token: a.token, body: { body: "fifth" } })).status).toBe(429);
    h.clock.advance(DAY);
    await leave(await fresh(a));
  });

  test("delete: yours is 204; someone else's and a missing one are the same 404, and nothing changes", async () => {
    const [a, b] = [await h.user({ karma: 10 }), await h.user()];
    const d = await leave(a);
    await h.req("POST", `/api/v1/dead-drops/${d.id}/signal`, { token: b.token });
    const before = dbState(h);
    const theirs = await h.req("DELETE", `/api/v1/dead-drops/${d.id}`, { token: b.token });
    const missing = await h.req("DELETE", `/api/v1/dead-drops/${crypto.randomUUID()}`, { token: b.token });
    expect([theirs.status, theirs.body]).toEqual([404, missing.body]);
    expect(dbState(h)).toEqual(before);
    expect((await h.req("DELETE", `/api/v1/dead-drops/${d.id}`, { token: a.token })).status).toBe(204);
    expect(h.ctx.db.$client.query("select count(*) n from dead_drop_signals where drop_id = ?").get(d.id)).toEqual({ n: 0 });
  });

  test("the author never leaks: every route, every caller, the OpenAPI schemas, the logs, the events", async () => {
    const author = await h.user({ karma: 10, username: `secret-author-${Math.random().toString(36).slice(2, 7)}` });
    const [other, admin] = [await h.user(), await h.user({ admin: true })];
    const traces = [author.id, author.username];
    const events = () => h.ctx.db.$client.query("select count(*) n from events").get() as { n: number };
    const eventsBefore = events();
    logLines.length = 0;
    const bodies: string[] = [];
    const d = await h.req("POST", "/api/v1/dead-drops", { token: author.token, body: { body: "nobody knows", tags: ["t"], duration: "7d" } });
    bodies.push(d.text, JSON.stringify([...d.headers]));
    for (const caller of [undefined, other, admin, author]) {
      for (const [m, path, query] of [
        ["GET", "/api/v1/dead-drops", {}],
        ["GET", "/api/v1/dead-drops", { sort: "signals", tag: "t" }],
        ["GET", `/api/v1/dead-drops/${d.body.id}`, {}],
        ["POST", `/api/v1/dead-drops/${d.body.id}/signal`, {}],
        ["POST", `/api/v1/dead-drops/${d.body.id}/signal`, {}],
      ] as const) {
        const r = await h.req(m, path, { token: caller?.token, query });
        bodies.push(r.text, JSON.stringify([...r.headers]));
      }
      const del = await h.req("DELETE", `/api/v1/dead-drops/${d.body.id}`, { token: caller && caller !== author ? caller.token : undefined });
      bodies.push(del.text);
    }
    // Every caller other than the author reads the same drop the same way.
    const views = await Promise.all([undefined, other.token, admin.token, author.token].map(async (token) => (await h.req("GET", `/api/v1/dead-drops/${d.body.id}`, { token })).text));
    expect(new Set(views).size).toBe(1);
    h.ctx.log.flush();
    for (const text of [...bodies, ...logLines]) for (const t of traces) expect(text.includes(t) ? `${t} in ${text.slice(0, 200)}` : "").toBe("");
    expect(logLines.length).toBeGreaterThan(0);
    // No domain event (and so no webhook, no activity record) was written by any drop route.
    expect(events()).toEqual(eventsBefore);
    // The documented shapes of every drop route have no field that could hold a person.
    const doc = (await h.req("GET", "/openapi.json")).body;
    const seen = new Set<string>();
    const fields: string[] = [];
    const walk = (s: any): void => {
      if (!s || typeof s !== "object") return;
      if (s.$ref) {
        if (seen.has(s.$ref)) return;
        seen.add(s.$ref);
        return walk(s.$ref.split("/").slice(1).reduce((o: any, k: string) => o[k], doc));
      }
      if (s.properties) for (const [k, v] of Object.entries(s.properties)) (fields.push(k), walk(v));
      for (const k of ["items", "anyOf", "oneOf", "allOf", "additionalProperties"]) if (s[k]) [s[k]].flat().forEach(walk);
    };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith("/api/v1/dead-drops"));
    expect(paths.length).toBe(3);
    for (const p of paths) for (const op of Object.values(doc.paths[p]) as any[]) for (const res of Object.values(op.responses ?? {}) as any[]) walk(res.content?.["application/json"]?.schema);
    expect(fields.length).toBeGreaterThan(5);
    expect(fields.filter((f) => /author|user|owner|creator|by$|username|actor/i.test(f))).toEqual([]);
  });

  test("a deleted account's drops and signals go; the counts it signalled drop", async () => {
    const [a, b] = [await h.user({ karma: 10 }), await h.user({ karma: 10 })];
    const theirs = await leave(b);
    await h.req("POST", `/api/v1/dead-drops/${theirs.id}/signal`, { token: a.token });
    const mine = await leave(a);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: a.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect((await h.req("GET", `/api/v1/dead-drops/${mine.id}`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/dead-drops/${theirs.id}`)).body.signal_count).toBe(0);
  });
});
