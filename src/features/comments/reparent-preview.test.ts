import { beforeEach, describe, expect, test } from "bun:test";
import { expectError } from "../../../test/expect";
import { setup } from "../../../test/harness";
import { eventsOf, join, makeColony, post, setColonySettings } from "../posts/fixtures";
import { UNKNOWN, comment } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const MIN = 60_000;

const reparent = (id: string, token: string | null, body: unknown) => h.req("POST", `/api/v1/comments/${id}/reparent`, { token, body });

describe("POST /api/v1/comments/{comment_id}/reparent", () => {
  test("moves a comment under another live comment of the post and back to the top level; nobody is notified", async () => {
    const u = await h.user({ karma: 10 });
    const other = await h.user();
    const p = await post(h, other);
    const target = await comment(h, other, p.id);
    const c = await comment(h, u, p.id);
    await h.ctx.events.drain();
    const before = (h.ctx.db.$client.query("select count(*) as n from notifications").get() as { n: number }).n;
    const r = await reparent(c.id, u.token, { parent_id: target.id });
    expect(r.status).toBe(200);
    expect(r.body.parent_id).toBe(target.id);
    expect(eventsOf(h, "comment_reparented").at(-1)!.payload).toMatchObject({ comment_id: c.id, from_parent_id: null, to_parent_id: target.id });
    await h.ctx.events.drain();
    expect((h.ctx.db.$client.query("select count(*) as n from notifications").get() as { n: number }).n).toBe(before);
    const back = await reparent(c.id, u.token, { parent_id: null });
    expect(back.status).toBe(200);
    expect(back.body.parent_id).toBeNull();
  });

  test("each condition in turn", async () => {
    const u = await h.user({ karma: 10 });
    const poor = await h.user({ karma: 9 });
    const p = await post(h, u);
    const p2 = await post(h, u);
    const parent = await comment(h, u, p.id);
    const c = await comment(h, u, p.id);

    expect((await reparent(c.id, u.token, {})).status).toBe(422);
    expect((await reparent(c.id, null, { parent_id: null })).status).toBe(401);
    expectError(await reparent(UNKNOWN, u.token, { parent_id: null }), 404, "NOT_FOUND");
    expectError(await reparent(c.id, (await h.user({ karma: 50 })).token, { parent_id: parent.id }), 403, "FORBIDDEN");
    const poorC = await comment(h, poor, p.id);
    expectError(await reparent(poorC.id, poor.token, { parent_id: parent.id }), 403, "KARMA_TOO_LOW");
    expectError(await reparent(c.id, u.token, { parent_id: UNKNOWN }), 404, "NOT_FOUND");
    expectError(await reparent(c.id, u.token, { parent_id: c.id }), 400, "INVALID_INPUT");
    const elsewhere = await comment(h, u, p2.id);
    expectError(await reparent(c.id, u.token, { parent_id: elsewhere.id }), 400, "INVALID_INPUT");
    const dead = await comment(h, u, p.id);
    await h.req("DELETE", `/api/v1/comments/${dead.id}`, { token: u.token });
    expectError(await reparent(c.id, u.token, { parent_id: dead.id }), 404, "NOT_FOUND");
    // A comment with replies stays where it is.
    await comment(h, u, p.id, { parent_id: parent.id });
    expectError(await reparent(parent.id, u.token, { parent_id: c.id }), 409, "CONFLICT");
    // The window.
    h.clock.advance(15 * MIN + 1);
    expectError(await reparent(c.id, u.token, { parent_id: parent.id }), 403, "FORBIDDEN");
  });

  test("rate limit comment_reparent (10 per hour, scaled by the trust multiplier)", async () => {
    const u = await h.user({ karma: 10 });
    const p = await post(h, u);
    const a = await comment(h, u, p.id);
    const c = await comment(h, u, p.id);
    for (let i = 0; i < 10; i++) expect((await reparent(c.id, u.token, { parent_id: i % 2 ? null : a.id })).status).toBe(200);
    let r = await reparent(c.id, u.token, { parent_id: null });
    for (let i = 0; i < 40 && r.status === 200; i++) r = await reparent(c.id, u.token, { parent_id: i % 2 ? null : a.id });
    expectError(r, 429, "RATE_LIMIT_COMMENT_REPARENT");
  });
});

describe("POST /api/v1/posts/{post_id}/comments/preview", () => {
  test("an acceptable comment: rendered HTML, resolved mentions, warnings; nothing written, nothing charged", async () => {
    const u = await h.user();
    const named = await h.user();
    const p = await post(h, u);
    const r = await h.req("POST", `/api/v1/posts/${p.id}/comments/preview`, { token: u.token, body: { body: `**Hi** @${named.username} @nobody-here-x` } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ would_be_accepted: true, blocker: null, resolved_mentions: [named.username] });
    expect(r.body.rendered_html).toContain("<strong>Hi</strong>");
    expect(r.body.warnings.map((w: any) => w.code)).toEqual(["MENTION_UNRESOLVED"]);
    expect((h.ctx.db.$client.query("select count(*) as n from comments where post_id = ?").get(p.id) as { n: number }).n).toBe(0);
    for (let i = 0; i < 40; i++) await h.req("POST", `/api/v1/posts/${p.id}/comments/preview`, { token: u.token, body: { body: "x" } });
    expect((await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: u.token, body: { body: "real" } })).status).toBe(201);
  });

  test("the blocker the create would answer: pending member, banned phrase, bad parent; held warning; 401 and 404", async () => {
    const founder = await h.user();
    const col = makeColony(h, founder, "restricted");
    const p = await post(h, founder, { colony_id: col.id });
    const pending = await h.user();
    await join(h, col, pending);
    const preview = (token: string | null, body: unknown, postId = p.id) => h.req("POST", `/api/v1/posts/${postId}/comments/preview`, { token, body });
    const r = await preview(pending.token, { body: "hello" });
    expect(r.body).toMatchObject({ would_be_accepted: false, blocker: { status: 403, code: "FORBIDDEN" } });
    expect(r.body.rendered_html).toContain("hello");
    setColonySettings(h, col.id, { banned_words: ["nope"], banned_words_action: "reject" });
    expect((await preview(founder.token, { body: "nope" })).body.blocker).toMatchObject({ status: 400, code: "CONTENT_BLOCKED_PHRASE" });
    expect((await preview(founder.token, { body: "ok", parent_id: UNKNOWN })).body.blocker).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const member = await h.user();
    await join(h, col, member, founder);
    setColonySettings(h, col.id, { banned_words: ["nope"], banned_words_action: "quarantine" });
    const held = await preview(member.token, { body: "nope" });
    expect(held.body.would_be_accepted).toBe(true);
    expect(held.body.warnings.map((w: any) => w.code)).toContain("COMMENT_WOULD_BE_HELD");
    expect((await preview(null, { body: "x" })).status).toBe(401);
    expect((await preview(founder.token, { body: "x" }, UNKNOWN)).body.blocker).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });
});
