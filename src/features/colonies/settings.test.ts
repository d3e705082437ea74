// PATCH /api/v1/colonies/{colony_id}: colony settings (spec Part 2 §2.4, §4.1, §7).
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { GENERAL_ID, eventsOf, makeColony, setRole, softDelete } from "./fixtures";
import { findColony, settingsOf, type ColonyRow } from "./service";

let h: Harness;
let founder: TestUser;
let stranger: TestUser;
let colony: ColonyRow;

beforeAll(() => {
  h = setup();
});

// Each test tends a colony of its own.
beforeEach(async () => {
  founder = await h.user();
  stranger = await h.user();
  colony = makeColony(h, founder, { displayName: "Tended" });
});

const patch = (body: unknown, token: string | null = founder.token, id = colony.id) => h.req("PATCH", `/api/v1/colonies/${id}`, { token, body });

describe("updating", () => {
  test("200 with ColonyUpdateOut: the colony, its settings and notice", async () => {
    const res = await patch({ display_name: "Tended Garden", description: "A quiet place." });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: colony.id,
      name: colony.name,
      display_name: "Tended Garden",
      description: "A quiet place.",
      member_count: 1,
      community_type: "public",
      notice: null,
      default_sort: "new",
      strike_threshold: 3,
      strike_action: "mute_7d",
      wiki_edit_policy: "members",
      banned_words: null,
    });
    expect((await h.req("GET", `/api/v1/colonies/by-name/${colony.name}`)).body).toMatchObject({ display_name: "Tended Garden", description: "A quiet place." });
  });

  test("every §2.4 setting round-trips", async () => {
    const body = {
      rules: "Be kind.",
      welcome_message: "Welcome!",
      default_sort: "top",
      crowd_control_level: "strict",
      accent_color: "#AABBCC",
      show_rules_banner: true,
      requires_post_approval: true,
      crosspost_policy: "disallow",
      require_flair: true,
      banned_words: ["spam", " Spam ", "scam", ""],
      report_reasons: ["Off-topic", "Spam"],
      banned_words_action: "reject",
      undo_window_seconds: 120,
      min_karma_to_post: 5,
      min_karma_to_comment: 2,
      min_karma_to_vote: 1,
      min_comment_length: 10,
      strike_threshold: 5,
      strike_action: "ban",
      wiki_edit_policy: "moderators",
      community_type: "restricted",
    };
    const res = await patch(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...body,
      accent_color: "#aabbcc",
      banned_words: ["spam", "scam"],
      posting_rules: { min_karma_to_post: 5, min_karma_to_comment: 2, min_karma_to_vote: 1, min_comment_length: 10 },
    });
    expect(settingsOf(findColony(h.ctx, colony.id)!)).toMatchObject({ strike_threshold: 5, wiki_edit_policy: "moderators", min_karma_to_post: 5 });
  });

  test("omitted fields are unchanged", async () => {
    await patch({ rules: "Rule one.", min_karma_to_post: 3, description: "Kept." });
    const res = await patch({ welcome_message: "Hi" });
    expect(res.body).toMatchObject({ rules: "Rule one.", min_karma_to_post: 3, description: "Kept.", welcome_message: "Hi", display_name: "Tended" });
  });

  test("explicit null clears a field back to its default", async () => {
    await patch({ description: "D", rules: "R", banned_words: ["x"], min_karma_to_post: 3, strike_threshold: 7, default_sort: "hot", report_reasons: ["A"] });
    const res = await patch({ description: null, rules: null, banned_words: null, min_karma_to_post: null, strike_threshold: null, default_sort: null, report_reasons: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: null, rules: null, banned_words: null, min_karma_to_post: null, strike_threshold: 3, default_sort: "new", report_reasons: null, posting_rules: null });
  });

  test("null on display_name or community_type leaves them unchanged", async () => {
    await patch({ community_type: "private" });
    const res = await patch({ display_name: null, community_type: null });
    expect(res.body).toMatchObject({ display_name: "Tended", community_type: "private" });
  });

  test("an empty body changes nothing and emits nothing", async () => {
    const res = await patch({});
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe("Tended");
    expect(eventsOf(h, "colony_settings_updated", colony.id)).toHaveLength(0);
  });

  test("unknown fields are dropped (name cannot be changed here)", async () => {
    const res = await patch({ name: "renamed", is_sandbox: true, rules: "R" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: colony.name, is_sandbox: false, rules: "R" });
  });

  test("a change emits colony_settings_updated naming the changed fields", async () => {
    await patch({ rules: "R", display_name: "Tended", min_karma_to_vote: 1 });
    const evs = eventsOf(h, "colony_settings_updated", colony.id);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ actor_id: founder.id, subject_id: colony.id });
    expect(evs[0].payload).toEqual({ colony_id: colony.id, colony_name: colony.name, fields: ["rules", "min_karma_to_vote"] });
  });

  test("switching to private hides the colony from strangers", async () => {
    await patch({ community_type: "private" });
    expectError(await h.req("GET", `/api/v1/colonies/by-name/${colony.name}`, { token: stranger.token }), 404, "NOT_FOUND");
    expect((await h.req("GET", `/api/v1/colonies/by-name/${colony.name}`, { token: founder.token })).status).toBe(200);
  });

  test("an archived colony's settings can still be changed", async () => {
    h.ctx.db.$client.query("update colonies set archived_at = 1 where id = ?").run(colony.id);
    expect((await patch({ rules: "Archived rules" })).status).toBe(200);
  });
});

describe("who may update", () => {
  test("moderators, colony admins and site admins", async () => {
    const mod = await h.user();
    await h.req("POST", `/api/v1/colonies/${colony.id}/join`, { token: mod.token });
    setRole(h, colony.id, mod.id, "moderator");
    expect((await patch({ rules: "by mod" }, mod.token)).status).toBe(200);
    setRole(h, colony.id, mod.id, "admin");
    expect((await patch({ rules: "by colony admin" }, mod.token)).status).toBe(200);
    const admin = await h.user({ admin: true });
    expect((await patch({ rules: "by site admin" }, admin.token)).body.rules).toBe("by site admin");
  });

  test("403 FORBIDDEN for a stranger and a plain member; nothing changes", async () => {
    const member = await h.user();
    await h.req("POST", `/api/v1/colonies/${colony.id}/join`, { token: member.token });
    for (const token of [stranger.token, member.token]) await refused(h, () => patch({ display_name: "Hijacked" }, token), 403, "FORBIDDEN");
    expect(findColony(h.ctx, colony.id)!.displayName).toBe("Tended");
  });

  test("a moderator needs can_manage_settings (a moderator default): 403 FORBIDDEN without it, nothing changes (decisions §46)", async () => {
    const mod = await h.user();
    await h.req("POST", `/api/v1/colonies/${colony.id}/join`, { token: mod.token });
    setRole(h, colony.id, mod.id, "moderator");
    const keys = (k: string[]) => h.ctx.db.$client.query("update colony_members set permissions = ? where colony_id = ? and user_id = ?").run(JSON.stringify(k), colony.id, mod.id);
    keys(["can_remove", "can_ban"]);
    await refused(h, () => patch({ community_type: "private", strike_action: "ban" }, mod.token), 403, "FORBIDDEN");
    expect(findColony(h.ctx, colony.id)!).toMatchObject({ communityType: "public", settings: {} });
    expect(eventsOf(h, "colony_settings_updated", colony.id)).toEqual([]);
    keys(["can_manage_settings"]);
    expect((await patch({ rules: "by a settings moderator" }, mod.token)).status).toBe(200);
  });

  test("403 FORBIDDEN on a default colony, which has no moderators", async () => {
    expectError(await patch({ rules: "mine now" }, stranger.token, GENERAL_ID), 403, "FORBIDDEN");
  });

  test("401 AUTH_INVALID_TOKEN anonymously", async () => {
    expectError(await patch({ display_name: "Anon" }, null), 401, "AUTH_INVALID_TOKEN");
  });

  test("404 NOT_FOUND for a private colony the caller cannot see (stranger, pending member)", async () => {
    const priv = makeColony(h, founder, { type: "private" });
    const pending = await h.user();
    await h.req("POST", `/api/v1/colonies/by-name/${priv.name}/join`, { token: pending.token });
    for (const token of [stranger.token, pending.token]) expectError(await patch({ rules: "x" }, token, priv.id), 404, "NOT_FOUND");
    expect((await patch({ rules: "x" }, founder.token, priv.id)).status).toBe(200);
  });

  test("404 NOT_FOUND for a missing or soft-deleted colony", async () => {
    expectError(await patch({ rules: "x" }, founder.token, "0190a8b0-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    softDelete(h, colony.id);
    expectError(await patch({ rules: "x" }), 404, "NOT_FOUND");
  });
});

describe("validation", () => {
  test("400 INVALID_INPUT for a display_name that trims to empty", async () => {
    expectError(await patch({ display_name: "   " }), 400, "INVALID_INPUT");
  });

  test.each([
    ["display_name over 200", { display_name: "d".repeat(201) }],
    ["description over 10000", { description: "d".repeat(10001) }],
    ["rules over 20000", { rules: "r".repeat(20001) }],
    ["welcome_message over 2000", { welcome_message: "w".repeat(2001) }],
    ["unknown default_sort", { default_sort: "best" }],
    ["unknown community_type", { community_type: "secret" }],
    ["accent_color not #rrggbb", { accent_color: "red" }],
    ["over 200 banned words", { banned_words: Array.from({ length: 201 }, (_, i) => `w${i}`) }],
    ["over 20 report reasons", { report_reasons: Array.from({ length: 21 }, (_, i) => `r${i}`) }],
    ["undo_window_seconds over 300", { undo_window_seconds: 301 }],
    ["negative karma floor", { min_karma_to_post: -1 }],
    ["karma floor over 100000", { min_karma_to_comment: 100001 }],
    ["strike_threshold 0", { strike_threshold: 0 }],
    ["strike_threshold 11", { strike_threshold: 11 }],
    ["unknown strike_action", { strike_action: "mute_1d" }],
    ["unknown wiki_edit_policy", { wiki_edit_policy: "everyone" }],
    ["a string for a boolean", { show_rules_banner: "yes" }],
  ])("422 for %s; nothing changes", async (_, body) => {
    const res = await refused(h, () => patch(body), 422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    expect(findColony(h.ctx, colony.id)!.settings).toEqual({});
  });

  test("422 for a colony_id that is not a uuid", async () => {
    expect((await h.req("PATCH", "/api/v1/colonies/tended", { token: founder.token, body: {} })).status).toBe(422);
  });
});
