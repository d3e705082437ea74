// The freeze (Part 3 §4.15; docs/decisions.md §91): a notarised post or comment is never
// edited, deleted by its author, moved or reparented again, wherever the change comes from; a
// moderator's removal still works, and the public record then answers 404.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { startCalendar } from "../../../test/ots-calendar";
import { comment } from "../comments/fixtures";
import { cast, type Cast } from "../moderation/governance-fixtures";
import { post } from "../posts/fixtures";

const cal = startCalendar();
afterAll(() => cal.stop());

// One harness for the file; each test has a colony and its people of its own.
const h = setup({ notarisation: { enabled: true, calendars: [cal.url], timeoutMs: 1000, allowPrivate: true }, rateLimitMultiplier: 0 });
let c: Cast;
beforeEach(async () => {
  c = await cast(h);
});

async function notarised(kind: "posts" | "comments", id: string, token: string) {
  const r = await h.req("POST", `/api/v1/${kind}/${id}/notarise`, { token });
  if (r.status !== 201) throw new Error(`notarise failed: ${r.status} ${r.text}`);
  return r.body;
}

function expectFrozen(r: { status: number; body: any }, code: string, notarisedAt: string) {
  expect(r.status).toBe(403);
  expect(r.body.detail).toMatchObject({ code, notarised_at: notarisedAt });
  expect(r.body.detail.message).toMatch(/notarised and frozen for good/);
}

describe("a notarised post", () => {
  test("edit (any field, even first tags), the author's delete and move-out are refused; nothing changes", async () => {
    const p = await post(h, c.member, { colony_id: c.colony.id });
    const rec = await notarised("posts", p.id, c.member.token);
    for (const body of [{ title: "New title" }, { body: "New body" }, { tags: ["late"] }, { language: "de" }]) {
      expectFrozen(await h.req("PUT", `/api/v1/posts/${p.id}`, { token: c.member.token, body }), "POST_EDIT_FORBIDDEN", rec.notarised_at);
    }
    // Within the author's 15-minute delete window all the same.
    expectFrozen(await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: c.member.token }), "POST_DELETE_FORBIDDEN", rec.notarised_at);
    expectFrozen(await h.req("POST", `/api/v1/colonies/${c.colony.id}/posts/${p.id}/move-out`, { token: c.mod.token }), "FORBIDDEN", rec.notarised_at);
    const now = (await h.req("GET", `/api/v1/posts/${p.id}`)).body;
    expect(now).toMatchObject({ title: p.title, body: p.body, tags: p.tags, colony_id: c.colony.id, notarised_at: rec.notarised_at });
    expect((await h.req("GET", `/api/v1/posts/${p.id}/notarisation`)).body.served_content_matches).toBe(true);
  });

  test("its author cannot delete it even as a moderator of the colony", async () => {
    const p = await post(h, c.mod, { colony_id: c.colony.id });
    const rec = await notarised("posts", p.id, c.mod.token);
    expectFrozen(await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: c.mod.token }), "POST_DELETE_FORBIDDEN", rec.notarised_at);
  });

  test("a moderator can still remove it; the record stays stored and answers 404 like the post", async () => {
    const p = await post(h, c.member, { colony_id: c.colony.id });
    await notarised("posts", p.id, c.member.token);
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: c.mod.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${p.id}/notarisation`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${p.id}/notarisation/proof`)).status).toBe(404);
    expect(h.ctx.db.$client.query("select count(*) as n from notarisations where subject_id = ?").get(p.id)).toEqual({ n: 1 });
  });

  test("the moderation queue's remove works on it too", async () => {
    const p = await post(h, c.member, { colony_id: c.colony.id });
    await notarised("posts", p.id, c.member.token);
    const rep = await h.req("POST", "/api/v1/reports", { token: c.stranger.token, body: { target_type: "post", target_id: p.id, reason: "spam" } });
    expect(rep.status).toBe(201);
    const r = await h.req("POST", `/api/v1/colonies/${c.colony.id}/queue/action`, { token: c.mod.token, body: { source: "open_report", source_id: rep.body.id, action: "remove" } });
    expect(r.status).toBe(200);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).status).toBe(404);
  });

  test("comments, votes and reactions on it go on as before", async () => {
    const p = await post(h, c.member, { colony_id: c.colony.id });
    await notarised("posts", p.id, c.member.token);
    expect((await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: c.stranger.token, body: { body: "still open for discussion" } })).status).toBe(201);
    expect((await h.req("POST", `/api/v1/posts/${p.id}/vote`, { token: c.stranger.token, body: { value: 1 } })).status).toBe(200);
  });
});

describe("a notarised comment", () => {
  test("edit, the author's delete and reparent are refused (403 FORBIDDEN); nothing changes", async () => {
    h.ctx.db.$client.query("update users set karma = 50 where id = ?").run(c.member.id);
    const p = await post(h, c.founder, { colony_id: c.colony.id });
    const other = await comment(h, c.founder, p.id);
    const mine = await comment(h, c.member, p.id, { body: "Kept exactly so" });
    const rec = await notarised("comments", mine.id, c.member.token);
    expectFrozen(await h.req("PUT", `/api/v1/comments/${mine.id}`, { token: c.member.token, body: { body: "Rewritten" } }), "FORBIDDEN", rec.notarised_at);
    expectFrozen(await h.req("DELETE", `/api/v1/comments/${mine.id}`, { token: c.member.token }), "FORBIDDEN", rec.notarised_at);
    expectFrozen(await h.req("POST", `/api/v1/comments/${mine.id}/reparent`, { token: c.member.token, body: { parent_id: other.id } }), "FORBIDDEN", rec.notarised_at);
    expect((await h.req("GET", `/api/v1/comments/${mine.id}`)).body).toMatchObject({ body: "Kept exactly so", parent_id: null, notarised_at: rec.notarised_at });
    // Others may still answer it, or move their own comments under it.
    const reply = await comment(h, c.stranger, p.id);
    h.ctx.db.$client.query("update users set karma = 50 where id = ?").run(c.stranger.id);
    expect((await h.req("POST", `/api/v1/comments/${reply.id}/reparent`, { token: c.stranger.token, body: { parent_id: mine.id } })).status).toBe(200);
  });

  test("a moderator can still remove it (tombstone); the record then answers 404", async () => {
    const p = await post(h, c.founder, { colony_id: c.colony.id });
    const mine = await comment(h, c.member, p.id);
    await notarised("comments", mine.id, c.member.token);
    expect((await h.req("DELETE", `/api/v1/comments/${mine.id}`, { token: c.mod.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/comments/${mine.id}/notarisation`)).status).toBe(404);
  });

  test("the post it answers may still be deleted by that post's author (the comment goes with it)", async () => {
    const p = await post(h, c.founder, { colony_id: c.colony.id });
    const mine = await comment(h, c.member, p.id);
    await notarised("comments", mine.id, c.member.token);
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: c.founder.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/comments/${mine.id}/notarisation`)).status).toBe(404);
  });
});
