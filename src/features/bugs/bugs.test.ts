// Bug reports (spec Part 3 §4.16): filing (stripped, validated, 5 an hour), the reporter's own
// list with its paging, and the operator's answer showing up for the reporter.
import { describe, expect, test } from "bun:test";
import { expectAnswer, setup } from "../../../test/harness";
import { HOUR, MINUTE } from "../../core/clock";
import { BugReportOut } from "./routes";
import * as bugs from "./service";

const h = setup();
const file = (token: string, body: Record<string, unknown>) => h.req("POST", "/api/v1/bugs", { token, body });
const report = (n = 0) => ({ title: `Broken thing ${n}`, description: `Steps to reproduce number ${n}: open the page and wait.` });

describe("POST /api/v1/bugs", () => {
  test("201 with the full report: stripped, open, no answer yet; an empty url is not kept", async () => {
    const u = await h.user();
    const r = await file(u.token, { title: "  Search returns 500  ", description: "\n  Searching for a lone quote breaks.  \n", url: "   " });
    expect(r.status).toBe(201);
    expectAnswer(BugReportOut, r.body);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      title: "Search returns 500",
      description: "Searching for a lone quote breaks.",
      url: null,
      status: "open",
      admin_response: null,
      created_at: new Date(h.clock.now()).toISOString(),
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    const withUrl = await file(u.token, { ...report(), url: " https://example.org/posts/1 " });
    expect(withUrl.body.url).toBe("https://example.org/posts/1");
  });

  test("401 without an account", async () => {
    const r = await h.req("POST", "/api/v1/bugs", { body: report() });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("422 for lengths out of range, counted after stripping, and for missing fields; nothing is stored", async () => {
    const u = await h.user();
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "ab", description: "long enough text" }, "title"],
      [{ title: "   ab   ", description: "long enough text" }, "title"],
      [{ title: "x".repeat(201), description: "long enough text" }, "title"],
      [{ title: "fine title", description: "too short" }, "description"],
      [{ title: "fine title", description: "   short     " }, "description"],
      [{ title: "fine title", description: "d".repeat(5001) }, "description"],
      [{ title: "fine title", description: "long enough text", url: "u".repeat(501) }, "url"],
      [{ description: "long enough text" }, "title"],
      [{ title: "fine title" }, "description"],
      [{ title: 123, description: "long enough text" }, "title"],
    ];
    for (const [body, field] of cases) {
      const r = await file(u.token, body);
      expect([JSON.stringify(body).slice(0, 60), r.status]).toEqual([JSON.stringify(body).slice(0, 60), 422]);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
    }
    const list = await h.req("GET", "/api/v1/bugs", { token: u.token });
    expect(list.body.total).toBe(0);
  });

  test("the sixth report within an hour is 429 RATE_LIMIT_BUG_REPORT with Retry-After; the window slides", async () => {
    // A trusted account (karma 200) gets no more: the spec's figure is 5 for everyone.
    const u = await h.user({ karma: 200 });
    for (let i = 0; i < 5; i++) {
      expect((await file(u.token, report(i))).status).toBe(201);
      h.clock.advance(MINUTE);
    }
    const refused = await file(u.token, report(5));
    expect(refused.status).toBe(429);
    expect(refused.body.detail.code).toBe("RATE_LIMIT_BUG_REPORT");
    expect(refused.body.detail.retry_after).toBe(55 * 60);
    expect(refused.headers.get("retry-after")).toBe(String(55 * 60));
    // A refused or invalid report costs nothing and stores nothing.
    expect((await h.req("GET", "/api/v1/bugs", { token: u.token })).body.total).toBe(5);
    // Someone else is not limited by it.
    expect((await file((await h.user()).token, report())).status).toBe(201);
    h.clock.advance(55 * MINUTE);
    expect((await file(u.token, report(6))).status).toBe(201);
    expect((await file(u.token, report(7))).status).toBe(429);
  });

  test("an invalid report is refunded: five valid ones still go through after it", async () => {
    const u = await h.user();
    expect((await file(u.token, { title: "no", description: "long enough text" })).status).toBe(422);
    for (let i = 0; i < 5; i++) expect((await file(u.token, report(i))).status).toBe(201);
  });
});

describe("GET /api/v1/bugs", () => {
  test("only the caller's own reports, newest first, with status and admin_response", async () => {
    const [a, b] = [await h.user(), await h.user()];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await file(a.token, report(i))).body.id);
      h.clock.advance(HOUR);
    }
    await file(b.token, report(9));
    const list = await h.req("GET", "/api/v1/bugs", { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 3, has_more: false });
    expect(list.body.items.map((r: any) => r.id)).toEqual(ids.slice().reverse());
    for (const item of list.body.items) expect(item).toMatchObject({ status: "open", admin_response: null });
    expect((await h.req("GET", "/api/v1/bugs", { token: b.token })).body.total).toBe(1);
  });

  test("paging: limit 1-100 (default 20), offset 0-100000, page; page and offset must agree", async () => {
    const u = await h.user();
    for (let i = 0; i < 25; i++) {
      bugs.fileReport(h.ctx, { id: u.id } as never, report(i));
      h.clock.advance(1000);
    }
    const first = await h.req("GET", "/api/v1/bugs", { token: u.token });
    expect(first.body.items).toHaveLength(20);
    expect(first.body).toMatchObject({ total: 25, has_more: true });
    const second = await h.req("GET", "/api/v1/bugs", { token: u.token, query: { page: 2 } });
    expect(second.body).toMatchObject({ total: 25, has_more: false, page: 2 });
    expect(second.body.items.map((r: any) => r.title)).toEqual([4, 3, 2, 1, 0].map((n) => `Broken thing ${n}`));
    const byOffset = await h.req("GET", "/api/v1/bugs", { token: u.token, query: { limit: 2, offset: 23 } });
    expect(byOffset.body.items.map((r: any) => r.title)).toEqual(["Broken thing 1", "Broken thing 0"]);
    expect((await h.req("GET", "/api/v1/bugs", { token: u.token, query: { limit: 5, offset: 5, page: 2 } })).status).toBe(200);
    const disagree = await h.req("GET", "/api/v1/bugs", { token: u.token, query: { limit: 5, offset: 3, page: 2 } });
    expect(disagree.status).toBe(400);
    expect(disagree.body.detail.code).toBe("INVALID_INPUT");
    for (const query of [{ limit: 0 }, { limit: 101 }, { offset: -1 }, { offset: 100001 }, { page: 0 }, { limit: "x" }]) {
      expect((await h.req("GET", "/api/v1/bugs", { token: u.token, query })).status).toBe(422);
    }
    expect((await h.req("GET", "/api/v1/bugs", { token: u.token, query: { offset: 100000 } })).body.items).toEqual([]);
  });

  test("401 without an account", async () => {
    expect((await h.req("GET", "/api/v1/bugs")).status).toBe(401);
  });

  test("the operator's answer reaches the reporter: status, response and updated_at", async () => {
    const u = await h.user();
    const filed = (await file(u.token, report())).body;
    h.clock.advance(HOUR);
    bugs.answerReport(h.ctx, filed.id, { status: "acknowledged", response: "  Thanks, we can reproduce it.  " });
    let mine = (await h.req("GET", "/api/v1/bugs", { token: u.token })).body.items[0];
    expect(mine).toMatchObject({ id: filed.id, status: "acknowledged", admin_response: "Thanks, we can reproduce it.", created_at: filed.created_at });
    expect(mine.updated_at).toBe(new Date(h.clock.now()).toISOString());
    bugs.answerReport(h.ctx, filed.id, { status: "fixed" });
    mine = (await h.req("GET", "/api/v1/bugs", { token: u.token })).body.items[0];
    expect(mine).toMatchObject({ status: "fixed", admin_response: "Thanks, we can reproduce it." });
    bugs.answerReport(h.ctx, filed.id, { response: "" });
    expect((await h.req("GET", "/api/v1/bugs", { token: u.token })).body.items[0].admin_response).toBeNull();
    expect(() => bugs.answerReport(h.ctx, filed.id, {})).toThrow("Give a status, a response or both");
    expect(() => bugs.answerReport(h.ctx, "not-an-id", { status: "closed" })).toThrow("No bug report");
    expect(() => bugs.answerReport(h.ctx, "0190a4f2-0000-7000-8000-000000000000", { status: "closed" })).toThrow("No bug report");
    expect(() => bugs.answerReport(h.ctx, filed.id, { response: "r".repeat(5001) })).toThrow("longer than 5000");
  });

  test("a self-deleted account's reports go with it", async () => {
    const u = await h.user();
    await file(u.token, report());
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(h.ctx.db.$client.query("select count(*) as n from bug_reports where user_id = ?").get(u.id)).toEqual({ n: 0 });
  });

  test("triage lists by status, oldest first", async () => {
    const before = bugs.listForTriage(h.ctx, null, 1000).length;
    const u = await h.user();
    const one = (await file(u.token, report(1))).body.id;
    h.clock.advance(1000);
    const two = (await file(u.token, report(2))).body.id;
    bugs.answerReport(h.ctx, one, { status: "closed" });
    expect(bugs.listForTriage(h.ctx, "closed", 100).map((r) => r.id)).toContain(one);
    expect(bugs.listForTriage(h.ctx, "open", 100).map((r) => r.id)).not.toContain(one);
    const all = bugs.listForTriage(h.ctx, null, 1000).map((r) => r.id);
    expect(all).toHaveLength(before + 2);
    expect(all.indexOf(one)).toBeLessThan(all.indexOf(two));
  });
});
