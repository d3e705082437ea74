import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { comment } from "../comments/fixtures";
import { join, makeColony, post, setColonySettings } from "../posts/fixtures";
import { callerOf } from "../auth/caller";
import * as users from "../users/service";
import { listPersonReports, settlePersonReport } from "./service";

const h = setup();
let author: TestUser, reporter: TestUser, other: TestUser;
const UNKNOWN = "00000000-0000-7000-8000-000000000000";
const as = (u: TestUser) => callerOf(users.findById(h.ctx, u.id)!);
const report = (u: TestUser | null, body: Record<string, unknown>) => h.req("POST", "/api/v1/reports", { token: u?.token ?? null, body });

beforeAll(async () => {
  author = await h.user();
  reporter = await h.user();
  other = await h.user();
});

describe("POST /api/v1/reports", () => {
  test("201 for a visible post, with the reference shape", async () => {
    const p = await post(h, author);
    const r = await report(reporter, { target_type: "post", target_id: p.id, reason: "spam", description: "  buy now  " });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ reporter: { id: reporter.id, username: reporter.username }, colony_id: p.colony_id, post_id: p.id, comment_id: null, reason: "spam", description: "buy now", status: "pending" });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.created_at).toMatch(/Z$/);
  });

  test("201 for a comment: post_id and comment_id both set, description optional", async () => {
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    const r = await report(reporter, { target_type: "comment", target_id: c.id, reason: "prompt_injection" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ post_id: p.id, comment_id: c.id, colony_id: p.colony_id, description: null, reason: "prompt_injection" });
  });

  test("409 CONFLICT for a second pending report by the same reporter; other reporters are not blocked", async () => {
    const p = await post(h, author);
    expect((await report(reporter, { target_type: "post", target_id: p.id, reason: "spam" })).status).toBe(201);
    const again = await report(reporter, { target_type: "post", target_id: p.id, reason: "harassment" });
    expect(again.status).toBe(409);
    expect(again.body.detail.code).toBe("CONFLICT");
    expect((await report(other, { target_type: "post", target_id: p.id, reason: "spam" })).status).toBe(201);
    // Once the first is resolved, a fresh report is allowed.
    h.ctx.db.$client.query("update reports set status = 'resolved' where reporter_id = ? and target_id = ?").run(reporter.id, p.id);
    expect((await report(reporter, { target_type: "post", target_id: p.id, reason: "spam" })).status).toBe(201);
  });

  test("reporting your own post is allowed", async () => {
    const p = await post(h, author);
    expect((await report(author, { target_type: "post", target_id: p.id, reason: "other" })).status).toBe(201);
  });

  test("404 NOT_FOUND for unknown, deleted and invisible targets, and for wiki pages", async () => {
    const cases: Record<string, unknown>[] = [
      { target_type: "post", target_id: UNKNOWN, reason: "spam" },
      { target_type: "comment", target_id: UNKNOWN, reason: "spam" },
      { target_type: "wiki_page", target_id: UNKNOWN, reason: "spam" },
    ];
    // A post in a private colony the reporter is not a member of.
    const priv = makeColony(h, author, "private");
    const hidden = await post(h, author, { colony_id: priv.id });
    cases.push({ target_type: "post", target_id: hidden.id, reason: "spam" });
    // A deleted post.
    const gone = await post(h, author);
    expect((await h.req("DELETE", `/api/v1/posts/${gone.id}`, { token: author.token })).status).toBeLessThan(300);
    cases.push({ target_type: "post", target_id: gone.id, reason: "spam" });
    // A post held for review is visible to its author and moderators only.
    const held = makeColony(h, other);
    await join(h, held, author);
    setColonySettings(h, held.id, { requires_post_approval: true });
    const heldPost = await post(h, author, { colony_id: held.id });
    expect(heldPost.held ?? true).toBe(true);
    cases.push({ target_type: "post", target_id: heldPost.id, reason: "spam" });
    // A comment on the invisible post.
    const c = await comment(h, author, hidden.id);
    cases.push({ target_type: "comment", target_id: c.id, reason: "spam" });
    for (const body of cases) {
      const r = await report(reporter, body);
      expect([r.status, r.body.detail?.code, body.target_id]).toEqual([404, "NOT_FOUND", body.target_id]);
    }
    // Nothing was stored by the refusals.
    const n = h.ctx.db.$client.query("select count(*) as n from reports where target_id in (?, ?, ?)").get(hidden.id, gone.id, heldPost.id) as { n: number };
    expect(n.n).toBe(0);
  });

  test("a member of the private colony can report there", async () => {
    const priv = makeColony(h, author, "private");
    const p = await post(h, author, { colony_id: priv.id });
    expect((await report(author, { target_type: "post", target_id: p.id, reason: "off_topic" })).status).toBe(201);
  });

  test("422 for a bad target_type, reason, id or an over-long description", async () => {
    const p = await post(h, author);
    for (const body of [
      { target_type: "colony", target_id: p.id, reason: "spam" },
      { target_type: "post", target_id: p.id, reason: "rude" },
      { target_type: "post", target_id: "not-a-uuid", reason: "spam" },
      { target_type: "post", target_id: p.id, reason: "spam", description: "x".repeat(1001) },
      { target_id: p.id, reason: "spam" },
    ]) {
      expect((await report(reporter, body)).status).toBe(422);
    }
  });

  test("401 for anonymous callers", async () => {
    const p = await post(h, other);
    const r = await report(null, { target_type: "post", target_id: p.id, reason: "spam" });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("10 reports per hour: the 11th is 429 RATE_LIMIT_REPORT; refused attempts are not charged", async () => {
    const u = await h.user();
    // A refused (404) attempt does not count against the limit.
    expect((await report(u, { target_type: "post", target_id: UNKNOWN, reason: "spam" })).status).toBe(404);
    for (let i = 0; i < 10; i++) {
      const p = await post(h, await h.user());
      expect((await report(u, { target_type: "post", target_id: p.id, reason: "spam" })).status).toBe(201);
    }
    const p = await post(h, await h.user());
    const r = await report(u, { target_type: "post", target_id: p.id, reason: "spam" });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_REPORT");
    expect(r.body.detail.retry_after).toBeGreaterThan(0);
    h.clock.advance(3600_000 + 1000);
    expect((await report(u, { target_type: "post", target_id: p.id, reason: "spam" })).status).toBe(201);
  });
});

describe("POST /api/v1/reports with target_type user (a person, for the site's administrators)", () => {
  test("the OpenAPI document offers user among the target types, and ReportOut's colony_id may be null", async () => {
    const op = (await h.req("GET", "/openapi.json")).body.paths["/api/v1/reports"].post;
    expect(op.requestBody.content["application/json"].schema.properties.target_type.enum).toEqual(["post", "comment", "wiki_page", "user"]);
    const out = op.responses["201"].content["application/json"].schema.properties;
    expect([out.colony_id.type, out.user_id.type]).toEqual([["string", "null"], ["string", "null"]]);
  });

  test("201: no colony, user_id names the person, nothing opened in any colony's queue", async () => {
    const person = await h.user();
    const r = await report(reporter, { target_type: "user", target_id: person.id, reason: "harassment", description: " rude in DMs " });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ reporter: { id: reporter.id }, colony_id: null, user_id: person.id, post_id: null, comment_id: null, reason: "harassment", description: "rude in DMs", status: "pending" });
    expect(h.ctx.db.$client.query("select count(*) as n from colony_mod_queue where source_id = ?").get(r.body.id)).toEqual({ n: 0 });
    // Reports of content keep naming their colony, and no person.
    const p = await post(h, author);
    expect((await report(person, { target_type: "post", target_id: p.id, reason: "spam" })).body).toMatchObject({ colony_id: p.colony_id, user_id: null });
  });

  test("404 NOT_FOUND for an unknown account; 400 INVALID_INPUT for oneself and for a custom_reason; nothing stored", async () => {
    const person = await h.user();
    const unknown = await report(reporter, { target_type: "user", target_id: UNKNOWN, reason: "spam" });
    expect([unknown.status, unknown.body.detail.code]).toEqual([404, "NOT_FOUND"]);
    const self = await report(reporter, { target_type: "user", target_id: reporter.id, reason: "spam" });
    expect([self.status, self.body.detail.code, self.body.detail.message]).toEqual([400, "INVALID_INPUT", "You cannot report yourself"]);
    const custom = await report(reporter, { target_type: "user", target_id: person.id, reason: "other", custom_reason: "Off-colony links" });
    expect([custom.status, custom.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const n = h.ctx.db.$client.query("select count(*) as n from reports where target_id in (?, ?, ?)").get(UNKNOWN, reporter.id, person.id) as { n: number };
    expect(n.n).toBe(0);
  });

  test("409 CONFLICT for a second pending report of the same person by the same reporter; others are not blocked; allowed again once settled", async () => {
    const person = await h.user();
    const admin = await h.user({ admin: true });
    const first = await report(reporter, { target_type: "user", target_id: person.id, reason: "spam" });
    expect(first.status).toBe(201);
    const again = await report(reporter, { target_type: "user", target_id: person.id, reason: "harassment" });
    expect([again.status, again.body.detail.code]).toEqual([409, "CONFLICT"]);
    expect((await report(other, { target_type: "user", target_id: person.id, reason: "spam" })).status).toBe(201);
    settlePersonReport(h.ctx, as(admin), first.body.id, "dismissed");
    expect((await report(reporter, { target_type: "user", target_id: person.id, reason: "spam" })).status).toBe(201);
  });

  test("the same 10 per hour as other reports: the 11th is 429 RATE_LIMIT_REPORT", async () => {
    const u = await h.user();
    const p = await post(h, await h.user());
    for (let i = 0; i < 9; i++) expect((await report(u, { target_type: "user", target_id: (await h.user()).id, reason: "spam" })).status).toBe(201);
    expect((await report(u, { target_type: "post", target_id: p.id, reason: "spam" })).status).toBe(201);
    const r = await report(u, { target_type: "user", target_id: (await h.user()).id, reason: "spam" });
    expect([r.status, r.body.detail.code]).toEqual([429, "RATE_LIMIT_REPORT"]);
    h.clock.advance(3600_000 + 1000);
  });

  test("a colony's moderator does not see a report of a member of the colony; an administrator does, and settles it once", async () => {
    const mod = await h.user();
    const colony = makeColony(h, mod);
    const person = await h.user();
    await join(h, colony, person);
    await post(h, person, { colony_id: colony.id });
    const r = await report(reporter, { target_type: "user", target_id: person.id, reason: "harassment" });
    expect(r.status).toBe(201);
    const queue = await h.req("GET", `/api/v1/colonies/${colony.id}/queue?source=open_report`, { token: mod.token });
    expect(queue.status).toBe(200);
    expect(JSON.stringify(queue.body)).not.toContain(person.id);
    expect(() => listPersonReports(h.ctx, as(mod), "pending")).toThrow("Report not found");
    expect(() => settlePersonReport(h.ctx, as(mod), r.body.id, "resolved")).toThrow("Report not found");
    const admin = await h.user({ admin: true });
    const listed = listPersonReports(h.ctx, as(admin), "pending").find((x) => x.report.id === r.body.id);
    expect([listed?.reporter?.id, listed?.person?.id, listed?.report.reason]).toEqual([reporter.id, person.id, "harassment"]);
    expect(settlePersonReport(h.ctx, as(admin), r.body.id, "resolved").status).toBe("resolved");
    expect(() => settlePersonReport(h.ctx, as(admin), r.body.id, "dismissed")).toThrow("already settled");
    expect(listPersonReports(h.ctx, as(admin), "pending").some((x) => x.report.id === r.body.id)).toBe(false);
    expect(listPersonReports(h.ctx, as(admin), "settled").some((x) => x.report.id === r.body.id)).toBe(true);
  });
});
