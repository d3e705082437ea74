import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { GENERAL, createPost, join, makeColony, postCount, setColonySettings } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());

const preview = (token: string | null, body: Record<string, unknown>) =>
  h.req("POST", "/api/v1/posts/preview", { token, body: { colony_id: GENERAL.id, post_type: "discussion", title: "A preview", body: "Body", ...body } });
const countPosts = () => (h.ctx.db.$client.query("select count(*) as n from posts").get() as { n: number }).n;
const countMentions = () => (h.ctx.db.$client.query("select count(*) as n from events where type = 'mention'").get() as { n: number }).n;

describe("POST /api/v1/posts/preview", () => {
  test("an acceptable post: rendered HTML, resolved mentions, nothing written", async () => {
    const u = await h.user();
    const friend = await h.user();
    const before = { posts: countPosts(), general: postCount(h, GENERAL.id), mentions: countMentions() };
    const r = await preview(u.token, { body: `# Hi @${friend.username} <script>x</script> [bad](javascript:alert(1))` });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ would_be_accepted: true, blocker: null, resolved_mentions: [friend.username], colony_name: "general", post_type: "discussion", is_scheduled: false });
    expect(r.body.rendered_html).toContain("<h1>");
    expect(r.body.rendered_html).toContain('class="mention"');
    expect(r.body.rendered_html).not.toContain("<script");
    expect(r.body.rendered_html).not.toContain('href="javascript:');
    expect({ posts: countPosts(), general: postCount(h, GENERAL.id), mentions: countMentions() }).toEqual(before);
  });

  type Row = { name: string; body: Record<string, unknown>; status: number; code: string; prepare?: () => Promise<Record<string, unknown>> };
  const rows: Row[] = [
    { name: "metadata rule", body: { post_type: "paid_offer", metadata: { listed_rate_sats: 5 } }, status: 400, code: "INVALID_INPUT" },
    { name: "poll options", body: { post_type: "poll", metadata: { poll_options: ["only one"] } }, status: 400, code: "INVALID_INPUT" },
    { name: "unknown colony", body: { colony_id: "00000000-0000-7000-8000-000000000000" }, status: 404, code: "NOT_FOUND" },
    { name: "schedule too soon", body: { scheduled_for: "2026-01-01T12:01:00Z" }, status: 400, code: "SCHEDULE_TOO_SOON" },
    { name: "title that trims short", body: { title: "  ab  " }, status: 400, code: "INVALID_INPUT" },
    {
      name: "pending member of a restricted colony",
      body: {},
      status: 403,
      code: "FORBIDDEN",
      prepare: async () => {
        const founder = await h.user();
        const c = makeColony(h, founder, "restricted");
        return { colony_id: c.id, _join: c };
      },
    },
    {
      name: "banned phrase",
      body: { body: "totally spam" },
      status: 400,
      code: "CONTENT_BLOCKED_PHRASE",
      prepare: async () => {
        const c = makeColony(h, await h.user());
        setColonySettings(h, c.id, { banned_words: ["spam"], banned_words_action: "reject" });
        return { colony_id: c.id };
      },
    },
  ];
  for (const row of rows) {
    test(`blocker: ${row.name} — the same status and code as POST /posts`, async () => {
      const u = await h.user();
      const extra = (await row.prepare?.()) ?? {};
      if (extra._join) await join(h, extra._join as any, u);
      delete extra._join;
      const body = { ...row.body, ...extra };
      const r = await preview(u.token, body);
      expect(r.status).toBe(200);
      expect(r.body.would_be_accepted).toBe(false);
      expect(r.body.blocker).toMatchObject({ status: row.status, code: row.code });
      expect(typeof r.body.blocker.message).toBe("string");
      const real = await createPost(h, u, { colony_id: GENERAL.id, ...body } as any);
      expect(real.status).toBe(row.status);
      expect(real.body.detail.code).toBe(row.code);
      expect(real.body.detail.message).toBe(r.body.blocker.message);
    });
  }

  test("warnings: would be held, unresolved mention, scheduled", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    setColonySettings(h, c.id, { requires_post_approval: true });
    const u = await h.user();
    h.ctx.db.$client.query("update users set lightning_address = 'seller@wallet.example' where id = ?").run(u.id);
    const r = await preview(u.token, { colony_id: c.id, post_type: "paid_offer", metadata: { listed_rate_sats: 100 }, body: "Hi @nobody-at-all", scheduled_for: "2026-01-02T00:00:00Z" });
    expect(r.body.would_be_accepted).toBe(true);
    expect(r.body.is_scheduled).toBe(true);
    expect(r.body.warnings.map((w: any) => w.code).sort()).toEqual(["MENTION_UNRESOLVED", "POST_WOULD_BE_HELD", "SCHEDULED"]);
  });

  test("a paid_offer without a lightning address on the profile is refused, as the real call refuses it", async () => {
    const u = await h.user();
    const r = await preview(u.token, { post_type: "paid_offer", metadata: { listed_rate_sats: 100 } });
    expect(r.body.would_be_accepted).toBe(false);
    expect(r.body.blocker).toMatchObject({ status: 400, code: "INVALID_INPUT" });
    expect(r.body.blocker.message).toContain("lightning_address");
  });

  test("no rate limit is charged: previews beyond the create_post limit still answer", async () => {
    const u = await h.user();
    for (let i = 0; i < 15; i++) expect((await preview(u.token, {})).status).toBe(200);
    expect((await createPost(h, u)).status).toBe(201);
  });

  test("schema failures are 422 like the real call; anonymous is 401", async () => {
    const u = await h.user();
    expect((await preview(u.token, { title: "ab" })).status).toBe(422);
    expect((await preview(null, {})).status).toBe(401);
  });
});
