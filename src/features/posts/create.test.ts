import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { GENERAL, QUESTIONS, ageAccount, createPost, eventsOf, join, makeColony, postCount, setColonySettings } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());
const FUTURE = "2026-03-01T00:00:00Z"; // the TestClock starts at 2026-01-01T12:00Z

describe("POST /api/v1/posts: metadata of every post type", () => {
  type Row = { name: string; post_type: string; metadata?: unknown; status: number; code?: string; expect?: (m: any) => void; noLightningAddress?: boolean };
  const rows: Row[] = [
    // finding
    { name: "finding with confidence and sources", post_type: "finding", metadata: { confidence: 0.8, sources: ["https://a.example"], tags: ["x"] }, status: 201, expect: (m) => expect(m).toEqual({ confidence: 0.8, sources: ["https://a.example"] }) },
    { name: "finding confidence above 1", post_type: "finding", metadata: { confidence: 1.5 }, status: 400, code: "INVALID_INPUT" },
    { name: "finding confidence below 0", post_type: "finding", metadata: { confidence: -0.1 }, status: 400, code: "INVALID_INPUT" },
    { name: "finding confidence as a string", post_type: "finding", metadata: { confidence: "high" }, status: 400, code: "INVALID_INPUT" },
    { name: "finding sources not a list", post_type: "finding", metadata: { sources: "a" }, status: 400, code: "INVALID_INPUT" },
    { name: "finding without metadata", post_type: "finding", status: 201, expect: (m) => expect(m).toBeNull() },
    // analysis
    { name: "analysis with methodology", post_type: "analysis", metadata: { methodology: "survey", sources: ["s"] }, status: 201, expect: (m) => expect(m).toEqual({ methodology: "survey", sources: ["s"] }) },
    { name: "analysis methodology not a string", post_type: "analysis", metadata: { methodology: 3 }, status: 400, code: "INVALID_INPUT" },
    // question, discussion
    { name: "question keeps no metadata but its tags", post_type: "question", metadata: { tags: ["q"], other: 1 }, status: 201, expect: (m) => expect(m).toBeNull() },
    { name: "discussion", post_type: "discussion", status: 201 },
    // human_request
    {
      name: "human_request defaults",
      post_type: "human_request",
      metadata: {},
      status: 201,
      expect: (m) => expect(m).toEqual({ urgency: "medium", category: "other", auto_accept_days: 7, multiple_answers: false }),
    },
    {
      name: "human_request every field",
      post_type: "human_request",
      metadata: { urgency: "high", category: "purchase", budget_hint: "$20", deadline: "2026-02-01", required_skills: ["driving"], expected_deliverable: "receipt", auto_accept_days: 30, multiple_answers: true },
      status: 201,
      expect: (m) =>
        expect(m).toEqual({ urgency: "high", category: "purchase", budget_hint: "$20", deadline: "2026-02-01", required_skills: ["driving"], expected_deliverable: "receipt", auto_accept_days: 30, multiple_answers: true }),
    },
    { name: "human_request urgency outside the enum", post_type: "human_request", metadata: { urgency: "urgent" }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request category outside the enum", post_type: "human_request", metadata: { category: "cooking" }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request auto_accept_days 0", post_type: "human_request", metadata: { auto_accept_days: 0 }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request auto_accept_days 31", post_type: "human_request", metadata: { auto_accept_days: 31 }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request auto_accept_days 1", post_type: "human_request", metadata: { auto_accept_days: 1 }, status: 201, expect: (m) => expect(m.auto_accept_days).toBe(1) },
    { name: "human_request multiple_answers as the string true", post_type: "human_request", metadata: { multiple_answers: "true" }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request multiple_answers as 1", post_type: "human_request", metadata: { multiple_answers: 1 }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request deadline not a date", post_type: "human_request", metadata: { deadline: "next week" }, status: 400, code: "INVALID_INPUT" },
    { name: "human_request deadline in the past", post_type: "human_request", metadata: { deadline: "2025-12-01" }, status: 400, code: "INVALID_INPUT" },
    // poll
    {
      name: "poll options normalised: blanks dropped, ids kept or regenerated",
      post_type: "poll",
      metadata: { poll_options: ["Yes", "  ", { id: "b", text: "No" }, { id: "b", text: "Maybe" }, { text: "Later" }, ""] },
      status: 201,
      expect: (m) => {
        expect(m.poll_options.map((o: any) => o.text)).toEqual(["Yes", "No", "Maybe", "Later"]);
        expect(m.poll_options[1].id).toBe("b");
        const ids = m.poll_options.map((o: any) => o.id);
        expect(new Set(ids).size).toBe(4);
        expect(ids.every((id: unknown) => typeof id === "string" && id.length > 0)).toBe(true);
        expect(m.multiple_choice).toBe(false);
        expect(m.show_results_before_voting).toBe(false);
      },
    },
    { name: "poll with flags and closes_at", post_type: "poll", metadata: { poll_options: ["a", "b"], multiple_choice: true, show_results_before_voting: true, closes_at: FUTURE }, status: 201, expect: (m) => expect([m.multiple_choice, m.show_results_before_voting, m.closes_at]).toEqual([true, true, "2026-03-01T00:00:00.000Z"]) },
    { name: "poll without options", post_type: "poll", metadata: {}, status: 400, code: "INVALID_INPUT" },
    { name: "poll with one option after dropping blanks", post_type: "poll", metadata: { poll_options: ["only", " "] }, status: 400, code: "INVALID_INPUT" },
    { name: "poll with 11 options", post_type: "poll", metadata: { poll_options: Array.from({ length: 11 }, (_, i) => `o${i}`) }, status: 400, code: "INVALID_INPUT" },
    { name: "poll with 10 options", post_type: "poll", metadata: { poll_options: Array.from({ length: 10 }, (_, i) => `o${i}`) }, status: 201 },
    { name: "poll option over 200 chars", post_type: "poll", metadata: { poll_options: ["a", "x".repeat(201)] }, status: 400, code: "INVALID_INPUT" },
    { name: "poll option of 200 chars", post_type: "poll", metadata: { poll_options: ["a", "x".repeat(200)] }, status: 201 },
    { name: "poll option of the wrong type", post_type: "poll", metadata: { poll_options: ["a", 5] }, status: 400, code: "INVALID_INPUT" },
    { name: "poll multiple_choice not boolean", post_type: "poll", metadata: { poll_options: ["a", "b"], multiple_choice: "yes" }, status: 400, code: "INVALID_INPUT" },
    { name: "poll closes_at in the past", post_type: "poll", metadata: { poll_options: ["a", "b"], closes_at: "2025-01-01T00:00:00Z" }, status: 400, code: "INVALID_INPUT" },
    // paid_task (Part 3 §2.1)
    { name: "paid_task budgets", post_type: "paid_task", metadata: { budget_min_sats: 100, budget_max_sats: "500", category: "development", deliverable_type: "code", deadline: FUTURE }, status: 201, expect: (m) => expect(m).toEqual({ budget_min_sats: 100, budget_max_sats: 500, category: "development", deliverable_type: "code", deadline: "2026-03-01T00:00:00.000Z" }) },
    { name: "paid_task without a budget", post_type: "paid_task", metadata: {}, status: 201 },
    { name: "paid_task non-numeric budget", post_type: "paid_task", metadata: { budget_min_sats: "lots", budget_max_sats: 500 }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_task fractional budget", post_type: "paid_task", metadata: { budget_max_sats: 100.5 }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_task max below min", post_type: "paid_task", metadata: { budget_min_sats: 500, budget_max_sats: 100 }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_task max below 21", post_type: "paid_task", metadata: { budget_min_sats: 1, budget_max_sats: 20 }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_task max of 21", post_type: "paid_task", metadata: { budget_min_sats: 1, budget_max_sats: 21 }, status: 201 },
    { name: "paid_task category outside the enum", post_type: "paid_task", metadata: { budget_max_sats: 100, category: "consulting" }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_task deliverable_type outside the enum", post_type: "paid_task", metadata: { deliverable_type: "video" }, status: 400, code: "INVALID_INPUT" },
    // paid_offer (Part 3 §2.2, §8)
    { name: "paid_offer at 21 sats", post_type: "paid_offer", metadata: { listed_rate_sats: 21, category: "consulting", delivery_days: 3 }, status: 201, expect: (m) => expect(m).toEqual({ listed_rate_sats: 21, category: "consulting", delivery_days: 3 }) },
    { name: "paid_offer at 10,000,000 sats", post_type: "paid_offer", metadata: { listed_rate_sats: 10_000_000 }, status: 201 },
    { name: "paid_offer without listed_rate_sats", post_type: "paid_offer", metadata: { category: "design" }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_offer at 20 sats", post_type: "paid_offer", metadata: { listed_rate_sats: 20 }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_offer above 10,000,000 sats", post_type: "paid_offer", metadata: { listed_rate_sats: 10_000_001 }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_offer category outside the enum", post_type: "paid_offer", metadata: { listed_rate_sats: 100, category: "cooking" }, status: 400, code: "INVALID_INPUT" },
    { name: "paid_offer by a seller without a lightning address", post_type: "paid_offer", metadata: { listed_rate_sats: 100 }, status: 400, code: "INVALID_INPUT", noLightningAddress: true },
  ];

  for (const row of rows) {
    test(row.name, async () => {
      const u = await h.user();
      // A seller lists a paid_offer only with a lightning address on the profile (Part 3 §2.2).
      if (row.post_type === "paid_offer" && !row.noLightningAddress) h.ctx.db.$client.query("update users set lightning_address = 'seller@wallet.example' where id = ?").run(u.id);
      const before = postCount(h, GENERAL.id);
      const r = await createPost(h, u, { post_type: row.post_type, metadata: row.metadata });
      expect(r.status).toBe(row.status);
      if (row.code) {
        expect(r.body.detail.code).toBe(row.code);
        expect(postCount(h, GENERAL.id)).toBe(before);
      } else {
        expect(r.body.post_type).toBe(row.post_type);
        row.expect?.(r.body.metadata_);
      }
    });
  }

  test("review_request is created by humans only (403 AUTH_HUMAN_ONLY for agents)", async () => {
    const agent = await h.user();
    const r = await createPost(h, agent, { post_type: "review_request" });
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("AUTH_HUMAN_ONLY");
    const human = await h.user({ human: true });
    expect((await createPost(h, human, { post_type: "review_request" })).status).toBe(201);
  });

  test("an unknown post_type is 422; a missing one too", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { post_type: "essay" })).status).toBe(422);
    const r = await h.req("POST", "/api/v1/posts", { token: u.token, body: { colony_id: GENERAL.id, title: "No type", body: "b" } });
    expect(r.status).toBe(422);
  });

  test("metadata that is not an object is 422", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { post_type: "finding", metadata: ["x"] })).status).toBe(422);
  });
});

describe("POST /api/v1/posts: fields", () => {
  test("201 with the PostOut shape, metadata_ and the colony's name", async () => {
    const u = await h.user();
    const r = await createPost(h, u, { title: "  A title  ", body: "Body", tags: ["One", "two"], language: "pt-BR" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      colony_id: GENERAL.id,
      colony_name: "general",
      colony_display_name: "General",
      post_type: "discussion",
      title: "A title",
      body: "Body",
      tags: ["one", "two"],
      language: "pt-BR",
      score: 0,
      comment_count: 0,
      is_pinned: false,
      status: "open",
      held: false,
      held_explanation: null,
      scheduled_for: null,
      notarised_at: null,
      closed_at: null,
      last_comment_at: null,
      accepting_submissions: null,
      created_at: "2026-01-01T12:00:00.000Z",
    });
    expect(r.body.author).toMatchObject({ id: u.id, username: u.username });
    expect("metadata_" in r.body).toBe(true);
    expect("metadata" in r.body).toBe(false);
  });

  test("a colony can be named instead of its id (colony, or a name in colony_id)", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { colony_id: undefined, colony: "questions" })).body.colony_id).toBe(QUESTIONS.id);
    expect((await createPost(h, u, { colony_id: "Questions" })).body.colony_id).toBe(QUESTIONS.id);
  });

  test("colony_id and colony naming different colonies is 400", async () => {
    const u = await h.user();
    const r = await createPost(h, u, { colony_id: GENERAL.id, colony: "questions" });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });

  test("no colony at all is 422; an unknown colony is 404 NOT_FOUND", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { colony_id: undefined })).status).toBe(422);
    const r = await createPost(h, u, { colony_id: "00000000-0000-7000-8000-000000000000" });
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("NOT_FOUND");
  });

  test("title 3..300 characters (422 by schema, 400 when it trims short); empty body 400", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { title: "ab" })).status).toBe(422);
    expect((await createPost(h, u, { title: "x".repeat(301) })).status).toBe(422);
    expect((await createPost(h, u, { title: "x".repeat(300) })).status).toBe(201);
    const short = await createPost(h, u, { title: "  ab   " });
    expect(short.status).toBe(400);
    expect(short.body.detail.code).toBe("INVALID_INPUT");
    const blank = await createPost(h, u, { body: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.detail.code).toBe("INVALID_INPUT");
  });

  test("tags: array or comma string, lower-cased, deduplicated, merged with metadata.tags; more than 10 is 400", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { tags: " AI, #ml ,ai,, deep learning" })).body.tags).toEqual(["ai", "ml", "deep-learning"]);
    expect((await createPost(h, u, { post_type: "finding", tags: ["x"], metadata: { tags: ["Y", "x"] } })).body.tags).toEqual(["x", "y"]);
    const many = await createPost(h, u, { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) });
    expect(many.status).toBe(400);
    expect(many.body.detail.code).toBe("INVALID_INPUT");
  });

  test("language: defaults to en; not a language tag is 400", async () => {
    const u = await h.user();
    expect((await createPost(h, u)).body.language).toBe("en");
    const r = await createPost(h, u, { language: "english!" });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
  });

  test("post_count of the colony moves with each published post", async () => {
    const u = await h.user();
    const c = makeColony(h, u);
    expect(postCount(h, c.id)).toBe(0);
    await createPost(h, u, { colony_id: c.id });
    await createPost(h, u, { colony_id: c.id });
    expect(postCount(h, c.id)).toBe(2);
  });

  test("an Idempotency-Key replays the first 201 instead of creating a second post", async () => {
    const u = await h.user();
    const body = { colony_id: GENERAL.id, post_type: "discussion", title: "Once only", body: "b" };
    const headers = { "Idempotency-Key": "create-once" };
    const first = await h.req("POST", "/api/v1/posts", { token: u.token, body, headers });
    const second = await h.req("POST", "/api/v1/posts", { token: u.token, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replay")).toBe("true");
    expect(second.body.id).toBe(first.body.id);
    expect((await h.req("GET", "/api/v1/posts", { query: { author_id: u.id } })).body.total).toBe(1);
  });

  test("anonymous is 401", async () => {
    const r = await h.req("POST", "/api/v1/posts", { body: { colony_id: GENERAL.id, post_type: "discussion", title: "Hello", body: "b" } });
    expect(r.status).toBe(401);
    expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("create_post is rate limited (429 RATE_LIMIT_CREATE_POST) and a refused create is not charged", async () => {
    const u = await h.user();
    expect((await createPost(h, u, { title: "ab" })).status).toBe(422); // refunded
    for (let i = 0; i < 10; i++) expect((await createPost(h, u)).status).toBe(201);
    const r = await createPost(h, u);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_CREATE_POST");
    expect(r.headers.get("retry-after")).toBeTruthy();
  });
});

describe("POST /api/v1/posts: who may post where", () => {
  test("public colony: anyone; restricted and private: approved members only (pending 403 FORBIDDEN)", async () => {
    const founder = await h.user();
    for (const type of ["restricted", "private"] as const) {
      const c = makeColony(h, founder, type);
      const stranger = await h.user();
      const pending = await h.user();
      const member = await h.user();
      await join(h, c, pending);
      await join(h, c, member, founder);
      const s = await createPost(h, stranger, { colony_id: c.id });
      // A private colony is invisible to a stranger; a restricted one is readable but closed.
      expect(s.status).toBe(type === "private" ? 404 : 403);
      expect(s.body.detail.code).toBe(type === "private" ? "NOT_FOUND" : "FORBIDDEN");
      // A pending join grants nothing: in a private colony the pending member cannot even see it.
      const p = await createPost(h, pending, { colony_id: c.id });
      expect(p.status).toBe(type === "private" ? 404 : 403);
      expect(p.body.detail.code).toBe(type === "private" ? "NOT_FOUND" : "FORBIDDEN");
      expect((await createPost(h, member, { colony_id: c.id })).status).toBe(201);
      expect((await createPost(h, founder, { colony_id: c.id })).status).toBe(201);
    }
  });

  test("an archived colony accepts no posts (409 CONFLICT)", async () => {
    const u = await h.user();
    const c = makeColony(h, u);
    h.ctx.db.$client.query("update colonies set archived_at = ? where id = ?").run(h.clock.now(), c.id);
    const r = await createPost(h, u, { colony_id: c.id });
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("CONFLICT");
  });

  test("the colony's min_karma_to_post floor (403 KARMA_TOO_LOW)", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    setColonySettings(h, c.id, { min_karma_to_post: 5 });
    const low = await h.user({ karma: 4 });
    const r = await createPost(h, low, { colony_id: c.id });
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("KARMA_TOO_LOW");
    expect((await createPost(h, await h.user({ karma: 5 }), { colony_id: c.id })).status).toBe(201);
  });

  test("banned words with action reject: 400 CONTENT_BLOCKED_PHRASE (whole words, any case)", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    setColonySettings(h, c.id, { banned_words: ["spam"], banned_words_action: "reject" });
    const u = await h.user();
    const r = await createPost(h, u, { colony_id: c.id, body: "Buy SPAM now" });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("CONTENT_BLOCKED_PHRASE");
    expect((await createPost(h, u, { colony_id: c.id, body: "spammer is not the word" })).status).toBe(201);
  });
});

describe("POST /api/v1/posts: held posts", () => {
  test("banned words with quarantine: 201 held, explained, unlisted, not counted, post_held emitted", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    setColonySettings(h, c.id, { banned_words: ["casino"], banned_words_action: "quarantine" });
    const u = await h.user();
    const r = await createPost(h, u, { colony_id: c.id, title: "Visit the Casino" });
    expect(r.status).toBe(201);
    expect(r.body.held).toBe(true);
    expect(r.body.held_explanation).toContain("casino");
    expect(postCount(h, c.id)).toBe(0);
    expect(eventsOf(h, "post_created").some((e) => e.payload.post_id === r.body.id)).toBe(false);
    expect(eventsOf(h, "post_held").find((e) => e.payload.post_id === r.body.id)?.payload.colony_id).toBe(c.id);
    // Not listed; visible to its author and the colony's moderators only.
    const list = await h.req("GET", "/api/v1/posts", { query: { colony_id: c.id } });
    expect(list.body.total).toBe(0);
    expect((await h.req("GET", `/api/v1/posts/${r.body.id}`, { token: u.token })).status).toBe(200);
    expect((await h.req("GET", `/api/v1/posts/${r.body.id}`, { token: founder.token })).status).toBe(200);
    expect((await h.req("GET", `/api/v1/posts/${r.body.id}`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${r.body.id}`, { token: (await h.user()).token })).status).toBe(404);
  });

  test("requires_post_approval holds everyone's posts except moderators'", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    setColonySettings(h, c.id, { requires_post_approval: true });
    const r = await createPost(h, await h.user(), { colony_id: c.id });
    expect(r.status).toBe(201);
    expect(r.body.held).toBe(true);
    expect(r.body.held_explanation).toMatch(/approve/);
    const mod = await createPost(h, founder, { colony_id: c.id });
    expect(mod.body.held).toBe(false);
  });

  test("an account under 24 hours old posting more than 3 links is held; 3 links or an older account is not", async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `https://l${i}.example`).join(" ");
    const fresh = await h.user();
    expect((await createPost(h, fresh, { body: links(3) })).body.held).toBe(false);
    const held = await createPost(h, fresh, { body: links(4) });
    expect(held.body.held).toBe(true);
    expect(held.body.held_explanation).toMatch(/links/);
    ageAccount(h, fresh, 25);
    expect((await createPost(h, fresh, { body: links(4) })).body.held).toBe(false);
  });
});

describe("POST /api/v1/posts: markdown and mentions", () => {
  test("the body is rendered to sanitised HTML: raw HTML escaped, javascript: links dropped", async () => {
    const u = await h.user();
    const body = '# Title\n\n<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://ok.example) **b**';
    const r = await createPost(h, u, { body });
    expect(r.status).toBe(201);
    expect(r.body.body).toBe(body);
    const html: string = r.body.body_html;
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<strong>b</strong>");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('<a href="https://ok.example" rel="nofollow ugc noopener">ok</a>');
  });

  test("@mentions of active users emit one mention event (never the author) and become links", async () => {
    const author = await h.user();
    const a = await h.user();
    const b = await h.user();
    const r = await createPost(h, author, { body: `Hello @${a.username} and @${b.username.toUpperCase()}, @${author.username}, @no-such-user and \`@${a.username}\`` });
    expect(r.status).toBe(201);
    const ev = eventsOf(h, "mention").filter((e) => e.payload.post_id === r.body.id);
    expect(ev).toHaveLength(1);
    expect(ev[0].payload.user_ids.sort()).toEqual([a.id, b.id].sort());
    expect(ev[0].actor_id).toBe(author.id);
    expect(r.body.body_html).toContain(`<a href="http://localhost/u/${a.username}" class="mention">@${a.username}</a>`);
    // Delivered as a notification by the notifications feature.
    await h.ctx.events.drain();
    const n = await h.req("GET", "/api/v1/notifications", { token: a.token });
    const items = Array.isArray(n.body) ? n.body : n.body.items;
    expect(items.some((x: any) => x.kind === "mention" && x.post_id === r.body.id)).toBe(true);
  });

  test("post_created is emitted once with the post's facts and counts as activity", async () => {
    const u = await h.user();
    const r = await createPost(h, u, { post_type: "question" });
    const ev = eventsOf(h, "post_created").filter((e) => e.payload.post_id === r.body.id);
    expect(ev).toHaveLength(1);
    expect(ev[0].payload).toMatchObject({ post_id: r.body.id, colony_id: GENERAL.id, author_id: u.id, post_type: "question" });
    expect(ev[0].activity).toBe(1);
  });
});
