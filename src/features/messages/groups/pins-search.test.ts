// Pins (admins, max 5, only this group's live messages) and full-text search within a group
// (FTS5 over message bodies: members only, deleted messages never match, edits re-indexed,
// search syntax never interpreted).
import { beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../../test/expect";
import { setup, type TestUser } from "../../../../test/harness";
import { beginTest, expect422, newUsers } from "../testkit";
import { G, groupSent, makeGroup } from "./gtestkit";
import { groupMatch, highlightHtml } from "./search";

const h = setup({ rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser;
let g: string;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol] = await newUsers(h, 3);
  g = await makeGroup(h, alice, [bob, carol], [bob]);
});

const pin = (u: TestUser, msgId: string, conv = g) => h.req("POST", `${G}/${conv}/messages/${msgId}/pin`, { token: u.token });
const unpin = (u: TestUser, msgId: string, conv = g) => h.req("DELETE", `${G}/${conv}/messages/${msgId}/pin`, { token: u.token });
const pinnedIds = async () => (await h.req("GET", `${G}/${g}`, { token: bob.token })).body.pinned.map((m: any) => m.id);

describe("pins", () => {
  test("an admin pins (idempotent) and unpins (idempotent); GET lists pins in pin order", async () => {
    const m1 = await groupSent(h, bob, g, "first");
    const m2 = await groupSent(h, bob, g, "second");
    expect((await pin(alice, m2.id)).body).toEqual({ pinned: true, already: false });
    h.clock.advance(1000);
    expect((await pin(alice, m1.id)).body).toEqual({ pinned: true, already: false });
    expect((await pin(alice, m1.id)).body).toEqual({ pinned: true, already: true });
    expect(await pinnedIds()).toEqual([m2.id, m1.id]);
    expect((await unpin(alice, m2.id)).body).toEqual({ pinned: false, already: false });
    expect((await unpin(alice, m2.id)).body).toEqual({ pinned: false, already: true });
    expect(await pinnedIds()).toEqual([m1.id]);
  });

  test("at most 5 live pins (400 LIMIT_EXCEEDED); a deleted pinned message drops out and frees its slot", async () => {
    const ms: any[] = [];
    for (let i = 0; i < 6; i++) ms.push(await groupSent(h, bob, g, `m${i}`));
    for (let i = 0; i < 5; i++) expect((await pin(alice, ms[i].id)).status).toBe(200);
    await refused(h, () => pin(alice, ms[5].id), 400, "LIMIT_EXCEEDED");
    expect(await pinnedIds()).toHaveLength(5);
    expect((await h.req("DELETE", `/api/v1/messages/${ms[0].id}`, { token: bob.token })).status).toBeLessThan(300);
    expect(await pinnedIds()).toEqual(ms.slice(1, 5).map((m) => m.id));
    expect((await pin(alice, ms[5].id)).status).toBe(200);
  });

  test("errors: a message of another group or unknown 404, a deleted message 404, plain member 403", async () => {
    const m = await groupSent(h, bob, g, "mine");
    const other = await makeGroup(h, alice, [carol]);
    const elsewhere = await groupSent(h, alice, other, "elsewhere");
    expectError(await pin(alice, elsewhere.id), 404, "NOT_FOUND");
    expectError(await unpin(alice, elsewhere.id), 404, "NOT_FOUND");
    expectError(await pin(alice, "019b0000-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
    expectError(await pin(alice, "nonsense"), 404, "NOT_FOUND");
    expectError(await pin(bob, m.id), 403, "FORBIDDEN");
    expectError(await unpin(bob, m.id), 403, "FORBIDDEN");
    await h.req("DELETE", `/api/v1/messages/${m.id}`, { token: bob.token });
    expectError(await pin(alice, m.id), 404, "NOT_FOUND");
    expect(await pinnedIds()).toEqual([]);
  });
});

describe("GET /messages/groups/{id}/search", () => {
  const search = (u: TestUser, q: string, extra: Record<string, string | number> = {}, conv = g) =>
    h.req("GET", `${G}/${conv}/search`, { token: u.token, query: { q, ...extra } });

  test("finds words (stemmed), phrases and prefixes within the group, best first, with an escaped highlight", async () => {
    const a = await groupSent(h, alice, g, "Deploying the <new> build tonight");
    const b = await groupSent(h, bob, g, "the build is green");
    await groupSent(h, bob, g, "unrelated chatter");
    const r = await search(bob, "deploy");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ q: "deploy", count: 1, pagination: { total: 1, has_more: false } });
    expect(r.body.results[0]).toMatchObject({ id: a.id, conversation_id: g, body: "Deploying the <new> build tonight", sender: { username: alice.username } });
    expect(r.body.results[0].body_highlight).toBe("<mark>Deploying</mark> the &lt;new&gt; build tonight");
    expect((await search(bob, "build")).body.results.map((x: any) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect((await search(bob, '"build is green"')).body.results.map((x: any) => x.id)).toEqual([b.id]);
    expect((await search(bob, "unrel*")).body.count).toBe(1);
    expect((await search(bob, "build tonight")).body.results.map((x: any) => x.id)).toEqual([a.id]);
    expect((await search(bob, "nothing-like-this")).body).toMatchObject({ count: 0, results: [] });
  });

  test("only this group's messages: the same words in another group or a DM do not match", async () => {
    // Words no other message of the shared database holds.
    const word = (w: string) => `${w}${g.replace(/-/g, "")}`;
    const [beta, gamma] = [word("beta"), word("gamma")];
    await groupSent(h, alice, g, "secret plan alpha");
    const other = await makeGroup(h, carol, [alice]);
    await groupSent(h, carol, other, `secret plan ${beta}`);
    await h.req("POST", `/api/v1/messages/send/${bob.username}`, { token: alice.token, body: { body: `secret plan ${gamma}` } });
    const r = await search(bob, "secret plan");
    expect(r.body.results.map((x: any) => x.body)).toEqual(["secret plan alpha"]);
    // Only group messages are indexed at all (a direct send writes no full-text entry), and the
    // index matches what it was built from.
    const matches = (q: string) => (h.ctx.db.$client.query("select count(*) as n from messages_fts where messages_fts match ?").get(q) as { n: number }).n;
    expect(matches(gamma)).toBe(0);
    expect(matches(beta)).toBe(1);
    expect(matches(groupMatch(beta, other))).toBe(1);
    expect(() => h.ctx.db.$client.run("insert into messages_fts(messages_fts, rank) values ('integrity-check', 1)")).not.toThrow();
  });

  test("a deleted message never matches; an edited message matches its new text only", async () => {
    const del = await groupSent(h, bob, g, "temporary note zebra");
    const ed = await groupSent(h, bob, g, "typo giraffe");
    expect((await search(bob, "zebra")).body.count).toBe(1);
    await h.req("DELETE", `/api/v1/messages/${del.id}`, { token: bob.token });
    expect((await search(bob, "zebra")).body).toMatchObject({ count: 0, pagination: { total: 0 } });
    expect((await h.req("PATCH", `/api/v1/messages/${ed.id}`, { token: bob.token, body: { body: "fixed elephant" } })).status).toBe(200);
    expect((await search(bob, "giraffe")).body.count).toBe(0);
    expect((await search(bob, "elephant")).body.results.map((x: any) => x.id)).toEqual([ed.id]);
  });

  test("search syntax is never interpreted: operators, column filters and quotes are plain text", async () => {
    await groupSent(h, alice, g, "alpha OR beta");
    for (const q of ['alpha" OR "x', "scope:zc", "body : alpha", "NEAR(alpha beta)", "*", "-alpha", "^alpha", "alpha AND", "(", '"']) {
      const r = await search(bob, q);
      expect([q, r.status]).toEqual([q, 200]);
    }
    expect((await search(bob, "OR")).body.count).toBe(1);
    expect((await search(bob, "zc")).body.count).toBe(0);
    expect((await search(bob, `zc${g.replace(/-/g, "")}`)).body.count).toBe(0);
    expect((await search(bob, "!!!")).body).toEqual({ q: "!!!", count: 0, results: [], pagination: { total: 0, has_more: false } });
  });

  test("paging: limit 1-50 (default 20), offset and page", async () => {
    for (let i = 0; i < 25; i++) await groupSent(h, alice, g, `report number ${i}`);
    const first = await search(bob, "report");
    expect(first.body).toMatchObject({ count: 20, pagination: { total: 25, has_more: true } });
    const rest = await search(bob, "report", { offset: 20 });
    expect(rest.body).toMatchObject({ count: 5, pagination: { total: 25, has_more: false } });
    const page2 = await search(bob, "report", { limit: 10, page: 3 });
    expect(page2.body.count).toBe(5);
    const ids = new Set([...first.body.results, ...rest.body.results].map((x: any) => x.id));
    expect(ids.size).toBe(25);
    expect422(await search(bob, "report", { limit: 51 }));
    expect422(await search(bob, "report", { limit: 0 }));
    expect422(await h.req("GET", `${G}/${g}/search`, { token: bob.token }));
    expect422(await search(bob, ""));
  });

  test("members only: stranger, pending invitee and anonymous cannot search", async () => {
    await groupSent(h, alice, g, "hidden words");
    const stranger = await h.user();
    expectError(await search(stranger, "hidden"), 404, "NOT_FOUND");
    expectError(await search(carol, "hidden"), 404, "NOT_FOUND");
    expect((await h.req("GET", `${G}/${g}/search`, { query: { q: "hidden" } })).status).toBe(401);
  });

  test("highlightHtml escapes everything but the marks", () => {
    expect(highlightHtml("a \uE000<b>\uE001 & 'q'")).toBe("a <mark>&lt;b&gt;</mark> &amp; &#39;q&#39;");
  });
});
