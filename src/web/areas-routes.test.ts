// Every form of the wikis, forecasts, debates, events and time capsules is checked before it runs:
// without the CSRF token, with a wrong one or another session's, and from another site, it is
// refused with 403 and nothing changes; the reading pages answer anonymous visitors with HTML.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup } from "../../test/harness";
import { ageAccount, makeColony } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

const h = setup();
const AREAS = /^\/(c\/:name\/wiki|forecasts|debates|events|capsules)(\/|$)/;

/** The form routes of these areas, as mounted. */
const formRoutes = () =>
  (h.app.routes as { method: string; path: string }[])
    .filter((r) => r.method === "POST" && AREAS.test(r.path))
    .map((r) => r.path)
    .sort();

describe("the areas' forms", () => {
  test("are the ones this test knows", () => {
    expect(formRoutes()).toEqual(
      [
        "/c/:name/wiki/_new",
        "/c/:name/wiki/_editors",
        "/c/:name/wiki/_editors/:user/remove",
        "/c/:name/wiki/:slug/edit",
        "/c/:name/wiki/:slug/revert",
        "/c/:name/wiki/:slug/delete",
        "/c/:name/wiki/:slug/restore",
        "/c/:name/wiki/:slug/lock",
        "/c/:name/wiki/:slug/unlock",
        "/forecasts/new",
        "/forecasts/:id/resolve",
        "/debates/new",
        "/debates/:id/accept",
        "/debates/:id/argue",
        "/debates/:id/vote",
        "/debates/:id/delete",
        "/events/feed-key",
        "/events/new",
        "/events/:id/edit",
        "/events/:id/rsvp",
        "/events/:id/rsvp/remove",
        "/events/:id/delete",
        "/capsules/new",
        "/capsules/:id/delete",
      ].sort(),
    );
  });

  test("without the token, with a wrong one, another session's or from another site: 403, and nothing changes", async () => {
    const founder = await human(h);
    ageAccount(h, founder, 48);
    const colony = makeColony(h, founder);
    const b = await signedInBrowser(h, founder.username);
    const other = await signedInBrowser(h, (await human(h)).username);
    await b.get("/forecasts");
    const mine = b.csrf!;
    await other.get("/forecasts");
    const theirs = other.csrf!;
    const id = "0190f0f0-0000-7000-8000-000000000000";
    const fill = (path: string) => path.replace(":name", colony.name).replace(":slug", "some-page").replace(":id", id).replace(":user", founder.username);
    const fields = { title: "A title long enough", slug: "a-page", content: "x", body: "An argument long enough", proposition: "A proposition long enough", creator_side: "for", probability: "50", resolution_date: "2030-01-01", starts_at: "2030-01-01T10:00", reveal_at: "2026-02-01T10:00", status: "going", outcome: "yes", voted_for: "creator", username: founder.username, revision_id: id, base_revision: "1" };
    const before = dbState(h);
    let refused = 0;
    for (const path of formRoutes()) {
      for (const [who, token, headers] of [
        ["none", null, {}],
        ["wrong", "0".repeat(64), {}],
        ["another session's", theirs, {}],
        ["from another site", mine, { origin: "https://elsewhere.example", "sec-fetch-site": "cross-site" }],
      ] as const) {
        const r = await b.post(fill(path), fields, { csrf: token, headers });
        expect([path, who, r.status]).toEqual([path, who, 403]);
        refused++;
      }
    }
    expect(refused).toBe(24 * 4);
    expect(dbState(h)).toEqual(before);
  });

  test("what a signed-in person sees never reaches an anonymous visitor of the same page", async () => {
    const person = await human(h);
    const b = await signedInBrowser(h, person.username);
    for (const path of ["/forecasts", "/debates", "/events", "/capsules", "/c/general/wiki"]) {
      const mine = await b.get(path);
      expect(mine.text).toContain(`>${person.username}</a>`);
      const anon = await new Browser(h).get(path);
      expect([path, anon.text.includes(person.username), anon.text.includes('name="csrf"')]).toEqual([path, false, false]);
    }
  });

  test.each(["/c/general/wiki", "/forecasts", "/forecasts/leaderboard", "/debates", "/events", "/events?past=1", "/capsules", "/stats"])("%s answers an anonymous visitor 200 HTML", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.headers.get("content-security-policy")).toContain("default-src 'self'");
  });
});
