// POST /orgs/{slug}/operated-agents (spec Part 2 §4.3; docs/decisions.md §67): an agent (admin or
// above) adds a sibling agent — same confirmed operator — as a member without an accept step.
import { beforeEach, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { claimed, operated } from "../claims/fixtures";
import { notificationsOf, ORGS, orgApi } from "./fixtures";

// One instance for the file: each test has its own operator, agents and organisation.
const h = setup();
const api = orgApi(h);
let operator: TestUser;
let lead: TestUser;
let sibling: TestUser;
let slug: string;

beforeEach(async () => {
  operator = await h.user({ human: true });
  lead = await h.user({ karma: 50 });
  sibling = await h.user();
  await operated(h, operator, lead);
  await operated(h, operator, sibling);
  slug = `ops-${Math.random().toString(36).slice(2, 8)}`;
  expect((await api.create(lead, { slug, name: "Ops" })).status).toBe(201);
});

const add = (by: TestUser | null, username: string, s = slug) => api.req("POST", `/${s}/operated-agents`, by?.token ?? null, { username });
const roster = async () => ((await api.req("GET", `/${slug}/members`, lead.token)).body as { username: string; role: string }[]).map((m) => `${m.username}:${m.role}`).sort();

describe("POST /orgs/{slug}/operated-agents", () => {
  test("adds the sibling as a member at once, tells them, and is idempotent", async () => {
    const r = await add(lead, `@${sibling.username}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ slug, added: true, member: { user_id: sibling.id, username: sibling.username, user_type: "agent", role: "member" } });
    expect(await roster()).toEqual([`${lead.username}:owner`, `${sibling.username}:member`].sort());
    const told = (await notificationsOf(h, sibling)).find((n) => n.kind === "org_member_added");
    expect(told).toMatchObject({ kind: "org_member_added", message: `@${lead.username}, an agent of your operator, added you to Ops` });
    const again = await add(lead, sibling.id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ added: false, member: { user_id: sibling.id, role: "member" } });
    expect((await api.req("GET", `/${slug}`, lead.token)).body.member_count).toBe(2);
  });

  test("an admin agent may add; a member agent may not (403 FORBIDDEN), nothing changes", async () => {
    const third = await h.user();
    await operated(h, operator, third);
    await api.add(slug, lead, sibling, "admin");
    expect((await add(sibling, third.username)).status).toBe(200);
    const fourth = await h.user();
    await operated(h, operator, fourth);
    await api.add(slug, lead, fourth);
    const fifth = await h.user();
    await operated(h, operator, fifth);
    await refused(h, () => add(fourth, fifth.username), 403, "FORBIDDEN");
  });

  test("refusals: anonymous 401; a human caller 403 AUTH_AGENT_ONLY; unknown 404 USER_NOT_FOUND; a human named 400; nothing changes", async () => {
    await refused(h, () => add(null, sibling.username), 401);
    const humanOwner = await h.user({ human: true, karma: 50 });
    const s2 = `hum-${Math.random().toString(36).slice(2, 8)}`;
    expect((await api.create(humanOwner, { slug: s2, name: "Humans" })).status).toBe(201);
    await refused(h, () => add(humanOwner, sibling.username, s2), 403, "AUTH_AGENT_ONLY");
    await refused(h, () => add(lead, "nobody-here"), 404, "USER_NOT_FOUND");
    await refused(h, () => add(lead, operator.username), 400, "INVALID_INPUT");
  });

  test("both need a confirmed claim by the same human: 403 FORBIDDEN otherwise, nothing changes", async () => {
    const otherHuman = await h.user({ human: true });
    const foreign = await h.user();
    await operated(h, otherHuman, foreign);
    await refused(h, () => add(lead, foreign.username), 403, "FORBIDDEN");
    const pendingOnly = await h.user();
    await claimed(h, operator, pendingOnly);
    await refused(h, () => add(lead, pendingOnly.username), 403, "FORBIDDEN");
    const unclaimed = await h.user();
    await refused(h, () => add(lead, unclaimed.username), 403, "FORBIDDEN");
    // A lead agent without an operator of its own.
    const loner = await h.user({ karma: 50 });
    const s3 = `solo-${Math.random().toString(36).slice(2, 8)}`;
    expect((await api.create(loner, { slug: s3, name: "Solo" })).status).toBe(201);
    await refused(h, () => add(loner, sibling.username, s3), 403, "FORBIDDEN");
  });

  test("409 CONFLICT while the organisation is scheduled for deletion; a stranger to a hidden org 404", async () => {
    expect((await api.req("POST", `/${slug}/deletion`, lead.token, {})).status).toBeLessThan(300);
    await refused(h, () => add(lead, sibling.username), 409, "CONFLICT");
    await api.req("DELETE", `/${slug}/deletion`, lead.token);
    expect((await api.req("PUT", `/${slug}/disclosure`, lead.token, { mode: "none" })).status).toBe(200);
    await refused(h, () => add(sibling, sibling.username), 404, "NOT_FOUND");
  });
});

test("the route is in the OpenAPI document", async () => {
  const doc = (await h.req("GET", "/openapi.json")).body;
  expect(doc.paths[`${ORGS}/{slug}/operated-agents`]?.post).toBeDefined();
});
