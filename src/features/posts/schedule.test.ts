import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { GENERAL, createPost, eventsOf, join, makeColony, post, postCount, setColonySettings } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const MIN = 60_000;
const at = (ms: number) => new Date(h.clock.now() + ms).toISOString();
const get = (id: string, token?: string) => h.req("GET", `/api/v1/posts/${id}`, { token });

/** Moves the clock and runs the due jobs, keeping `user`'s token fresh across long jumps. */
async function advance(ms: number) {
  h.clock.advance(ms);
  await h.ctx.jobs.runDue();
}
const freshToken = async (u: TestUser) => (await h.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey } })).body.access_token as string;

describe("scheduled posts", () => {
  test("scheduled_for 5 minutes to 30 days ahead; outside is 400 with a clear code; not a timestamp is 422", async () => {
    const u = await h.user();
    const cases: [string, number, string?][] = [
      [at(5 * MIN - 1000), 400, "SCHEDULE_TOO_SOON"],
      [at(-MIN), 400, "SCHEDULE_TOO_SOON"],
      [at(30 * 24 * 60 * MIN + 1000), 400, "SCHEDULE_TOO_FAR"],
      [at(5 * MIN), 201],
      [at(30 * 24 * 60 * MIN), 201],
    ];
    for (const [when, status, code] of cases) {
      const r = await createPost(h, u, { scheduled_for: when });
      expect([when, r.status]).toEqual([when, status]);
      if (code) expect(r.body.detail.code).toBe(code);
    }
    expect((await createPost(h, u, { scheduled_for: "tomorrow" })).status).toBe(422);
  });

  test("a scheduled post is a draft until its time: invisible, unlisted, uncounted, then published by the job with its fan-out", async () => {
    const author = await h.user();
    const friend = await h.user();
    const c = makeColony(h, author);
    const p = await post(h, author, { colony_id: c.id, scheduled_for: at(60 * MIN), body: `Hi @${friend.username}` });
    expect(p.scheduled_for).toBe(at(60 * MIN));
    expect(p.is_draft).toBe(true);
    expect(p.created_at).toBe(new Date(h.clock.now()).toISOString());
    expect((await get(p.id)).status).toBe(404);
    expect((await get(p.id, friend.token)).status).toBe(404);
    expect((await get(p.id, author.token)).status).toBe(200);
    expect((await h.req("GET", "/api/v1/posts", { query: { colony_id: c.id } })).body.total).toBe(0);
    expect(postCount(h, c.id)).toBe(0);
    expect(eventsOf(h, "post_created").some((e) => e.payload.post_id === p.id)).toBe(false);
    expect(eventsOf(h, "mention").some((e) => e.payload.post_id === p.id)).toBe(false);

    await advance(59 * MIN);
    expect((await get(p.id)).status).toBe(404);
    await advance(MIN);
    const live = await get(p.id);
    expect(live.status).toBe(200);
    expect(live.body.scheduled_for).toBeNull();
    expect(live.body.is_draft).toBe(false);
    expect(live.body.created_at).toBe(new Date(h.clock.now()).toISOString());
    expect((await h.req("GET", "/api/v1/posts", { query: { colony_id: c.id } })).body.total).toBe(1);
    expect(postCount(h, c.id)).toBe(1);
    expect(eventsOf(h, "post_created").filter((e) => e.payload.post_id === p.id)).toHaveLength(1);
    expect(eventsOf(h, "mention").find((e) => e.payload.post_id === p.id)?.payload.user_ids).toEqual([friend.id]);
    // Published: the edit window now runs from publication.
    const edit = await h.req("PUT", `/api/v1/posts/${p.id}`, { token: await freshToken(author), body: { title: "Edited after publishing" } });
    expect(edit.status).toBe(200);
    // Running the jobs again changes nothing.
    await advance(MIN);
    expect(eventsOf(h, "post_created").filter((e) => e.payload.post_id === p.id)).toHaveLength(1);
  });

  test("mentions are resolved at publication: an account created after scheduling is notified", async () => {
    const author = await h.user();
    const p = await post(h, author, { scheduled_for: at(10 * MIN), body: "Hello @late-comer" });
    const late = await h.user({ username: "late-comer" });
    await advance(10 * MIN);
    expect(eventsOf(h, "mention").find((e) => e.payload.post_id === p.id)?.payload.user_ids).toEqual([late.id]);
    expect((await get(p.id)).body.body_html).toContain('class="mention"');
  });

  test("scheduling counts against create_post when scheduled, not again at publication", async () => {
    const u = await h.user();
    for (let i = 0; i < 10; i++) expect((await createPost(h, u, { scheduled_for: at(10 * MIN) })).status).toBe(201);
    const r = await createPost(h, u, { scheduled_for: at(10 * MIN) });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_CREATE_POST");
  });

  test("GET /posts/scheduled: own pending scheduled posts, soonest first", async () => {
    const u = await h.user();
    const other = await h.user();
    const later = await post(h, u, { scheduled_for: at(3 * 60 * MIN) });
    const sooner = await post(h, u, { scheduled_for: at(60 * MIN) });
    await post(h, u); // published now
    await post(h, other, { scheduled_for: at(30 * MIN) });
    const r = await h.req("GET", "/api/v1/posts/scheduled", { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body.items.map((p: any) => p.id)).toEqual([sooner.id, later.id]);
    expect(r.body).toMatchObject({ total: 2, has_more: false, next_cursor: null });
    expect((await h.req("GET", "/api/v1/posts/scheduled")).status).toBe(401);
    await advance(60 * MIN);
    const after = await h.req("GET", "/api/v1/posts/scheduled", { token: await freshToken(u) });
    expect(after.body.items.map((p: any) => p.id)).toEqual([later.id]);
  });

  test("PATCH /posts/{id}/schedule moves the publish time; the old time publishes nothing", async () => {
    const u = await h.user();
    const p = await post(h, u, { scheduled_for: at(10 * MIN) });
    const r = await h.req("PATCH", `/api/v1/posts/${p.id}/schedule`, { token: u.token, body: { scheduled_for: at(60 * MIN) } });
    expect(r.status).toBe(200);
    expect(r.body.scheduled_for).toBe(at(60 * MIN));
    await advance(10 * MIN);
    expect((await get(p.id)).status).toBe(404);
    await advance(50 * MIN);
    expect((await get(p.id)).status).toBe(200);
  });

  test("PATCH schedule: window-valid (400), others' posts 404, published 409, missing body 422", async () => {
    const u = await h.user();
    const p = await post(h, u, { scheduled_for: at(10 * MIN) });
    const soon = await h.req("PATCH", `/api/v1/posts/${p.id}/schedule`, { token: u.token, body: { scheduled_for: at(MIN) } });
    expect(soon.status).toBe(400);
    expect(soon.body.detail.code).toBe("SCHEDULE_TOO_SOON");
    const far = await h.req("PATCH", `/api/v1/posts/${p.id}/schedule`, { token: u.token, body: { scheduled_for: at(31 * 24 * 60 * MIN) } });
    expect(far.body.detail.code).toBe("SCHEDULE_TOO_FAR");
    expect((await h.req("PATCH", `/api/v1/posts/${p.id}/schedule`, { token: u.token, body: {} })).status).toBe(422);
    const stranger = await h.req("PATCH", `/api/v1/posts/${p.id}/schedule`, { token: (await h.user()).token, body: { scheduled_for: at(60 * MIN) } });
    expect(stranger.status).toBe(404);
    const published = await post(h, u);
    const pub = await h.req("PATCH", `/api/v1/posts/${published.id}/schedule`, { token: u.token, body: { scheduled_for: at(60 * MIN) } });
    expect(pub.status).toBe(409);
    expect(pub.body.detail.code).toBe("CONFLICT");
    const otherPub = await h.req("PATCH", `/api/v1/posts/${published.id}/schedule`, { token: (await h.user()).token, body: { scheduled_for: at(60 * MIN) } });
    expect(otherPub.status).toBe(403);
    expect(otherPub.body.detail.code).toBe("FORBIDDEN");
  });

  test("DELETE /posts/{id}/schedule reverts to an unpublished draft: not deleted, never published, schedulable again", async () => {
    const u = await h.user();
    const p = await post(h, u, { scheduled_for: at(10 * MIN) });
    const r = await h.req("DELETE", `/api/v1/posts/${p.id}/schedule`, { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: p.id, scheduled_for: null, is_draft: true });
    await advance(20 * MIN);
    const draft = await get(p.id, u.token);
    expect(draft.status).toBe(200);
    expect(draft.body.is_draft).toBe(true);
    expect((await get(p.id)).status).toBe(404);
    expect(eventsOf(h, "post_created").some((e) => e.payload.post_id === p.id)).toBe(false);
    expect((await h.req("GET", "/api/v1/posts/scheduled", { token: u.token })).body.total).toBe(0);
    // Idempotent, then scheduled again.
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}/schedule`, { token: u.token })).status).toBe(200);
    expect((await h.req("PATCH", `/api/v1/posts/${p.id}/schedule`, { token: u.token, body: { scheduled_for: at(10 * MIN) } })).status).toBe(200);
    await advance(10 * MIN);
    expect((await get(p.id)).status).toBe(200);
  });

  test("DELETE schedule of a published post is 409, of someone else's draft 404", async () => {
    const u = await h.user();
    const published = await post(h, u);
    expect((await h.req("DELETE", `/api/v1/posts/${published.id}/schedule`, { token: u.token })).status).toBe(409);
    const draft = await post(h, u, { scheduled_for: at(10 * MIN) });
    expect((await h.req("DELETE", `/api/v1/posts/${draft.id}/schedule`, { token: (await h.user()).token })).status).toBe(404);
  });

  test("publication re-checks the colony: a held colony holds the post; a lost membership reverts it to a draft", async () => {
    const founder = await h.user();
    const gated = makeColony(h, founder, "restricted");
    const member = await h.user();
    await join(h, gated, member, founder);
    const p1 = await post(h, member, { colony_id: gated.id, scheduled_for: at(10 * MIN) });
    const open = makeColony(h, founder);
    const p2 = await post(h, member, { colony_id: open.id, scheduled_for: at(10 * MIN) });
    setColonySettings(h, open.id, { requires_post_approval: true });
    h.ctx.db.$client.query("delete from colony_members where colony_id = ? and user_id = ?").run(gated.id, member.id);
    await advance(10 * MIN);
    const r1 = await get(p1.id, member.token);
    expect(r1.body.is_draft).toBe(true);
    expect(r1.body.scheduled_for).toBeNull();
    expect(eventsOf(h, "post_publish_failed").some((e) => e.payload.post_id === p1.id)).toBe(true);
    const r2 = await get(p2.id, member.token);
    expect(r2.body).toMatchObject({ is_draft: false, held: true });
    expect(postCount(h, open.id)).toBe(0);
  });

  test("a post scheduled in a colony that disappears stays an unpublished draft", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    const p = await post(h, founder, { colony_id: c.id, scheduled_for: at(10 * MIN) });
    h.ctx.db.$client.query("update colonies set deleted_at = ? where id = ?").run(h.clock.now(), c.id);
    await advance(10 * MIN);
    expect((await get(p.id, founder.token)).body.is_draft).toBe(true);
  });

  test("the publish job survives: it is a durable row in the jobs table", async () => {
    const u = await h.user();
    const p = await post(h, u, { colony_id: GENERAL.id, scheduled_for: at(10 * MIN) });
    const job = h.ctx.db.$client.query("select kind, run_at, payload from jobs where kind = 'publish_post' and payload like ?").get(`%${p.id}%`) as any;
    expect(job.kind).toBe("publish_post");
    expect(job.run_at).toBe(h.clock.now() + 10 * MIN);
  });
});
