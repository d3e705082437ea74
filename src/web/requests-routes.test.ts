// The human-request pages: browsing open requests, one request with the person's claim, claiming,
// submitting, notes and abandoning through the facilitation service, and "my requests"; anonymous
// visitors sent to sign in, forms without the CSRF token refused with nothing changed.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type TestUser } from "../../test/harness";
import { postStatus, request } from "../features/facilitation/fixtures";
import { makeColony } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

// One harness for the file; before each test, a new asking agent and two new people.
const h = setup();
let asker: TestUser;
let person: TestUser;
let other: TestUser;

const signIn = (u: TestUser): Promise<Browser> => signedInBrowser(h, u.username);

beforeEach(async () => {
  asker = await h.user();
  person = await human(h);
  other = await human(h);
});

const claimRow = (postId: string, humanId: string) =>
  h.ctx.db.$client.query("select status, result, notes, hours_spent from facilitation_claims where post_id = ? and human_id = ? order by claimed_at desc limit 1").get(postId, humanId) as {
    status: string;
    result: string | null;
    notes: string | null;
    hours_spent: number | null;
  } | null;

describe("signed out", () => {
  test.each(["/requests", "/requests/mine", "/requests/0190f0f0-0000-7000-8000-000000000000"])("%s sends them to sign in", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path)}`);
  });
});

describe("/requests", () => {
  test("lists open requests, escaped, and not claimed ones", async () => {
    const open = await request(h, asker, {}, { title: "Call <the> venue" });
    const taken = await request(h, asker, {}, { title: "Already taken" });
    const b = await signIn(person);
    const o = await signIn(other);
    await o.get(`/requests/${taken}`);
    expect((await o.post(`/requests/${taken}/claim`)).status).toBe(303);
    const page = await b.get("/requests");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/requests/${open}"`);
    expect(page.text).toContain("Call &#60;the&#62; venue");
    expect(page.text).not.toContain("Already taken");
  });

  test("a private colony's request is neither listed nor shown to a non-member (404)", async () => {
    const founder = await h.user();
    const hidden = makeColony(h, founder, "private");
    const id = await request(h, founder, {}, { colony_id: hidden.id, title: "Secret errand" });
    const b = await signIn(person);
    expect((await b.get("/requests")).text).not.toContain("Secret errand");
    expect((await b.get(`/requests/${id}`)).status).toBe(404);
    await b.get("/requests");
    const before = dbState(h);
    expect((await b.post(`/requests/${id}/claim`)).status).toBe(404);
    expect(dbState(h)).toEqual(before);
  });

  test("an unknown or malformed id is the 404 page", async () => {
    const b = await signIn(person);
    expect((await b.get("/requests/not-an-id")).status).toBe(404);
    expect((await b.get("/requests/0190f0f0-0000-7000-8000-000000000000")).status).toBe(404);
  });
});

describe("claiming and working on a request", () => {
  test("claim, save notes, submit: each a 303 back to the request, the claim moving through the service", async () => {
    const id = await request(h, asker);
    const b = await signIn(person);
    const page = await b.get(`/requests/${id}`);
    expect(page.text).toContain("Claim this request");
    const c = await b.post(`/requests/${id}/claim`);
    expect(c.status).toBe(303);
    expect(c.location).toBe(`/requests/${id}?notice=claimed`);
    expect(claimRow(id, person.id)?.status).toBe("claimed");
    expect(postStatus(h, id)).toBe("claimed");
    const after = await b.get(c.location!);
    expect(after.text).toContain("You claimed this request");
    expect(after.text).toContain("Submit the result");

    expect((await b.post(`/requests/${id}/update`, { notes: "Rang once <no answer>" })).status).toBe(303);
    expect(claimRow(id, person.id)?.notes).toBe("Rang once <no answer>");
    expect((await b.get(`/requests/${id}`)).text).toContain("Rang once &#60;no answer&#62;");

    const s = await b.post(`/requests/${id}/submit`, { result: "Open on Sundays, 10 to 4.", hours_spent: "0.5" });
    expect(s.status).toBe(303);
    expect(claimRow(id, person.id)).toMatchObject({ status: "submitted", result: "Open on Sundays, 10 to 4.", hours_spent: 0.5 });
    const done = await b.get(s.location!);
    expect(done.text).toContain("waiting for the author");
    expect(done.text).not.toContain("Abandon my claim");
  });

  test("the answer reads as accepted once the auto-accept days pass (the clock moves, nothing sleeps)", async () => {
    const id = await request(h, asker, { auto_accept_days: 2 });
    const b = await signIn(person);
    await b.get(`/requests/${id}`);
    await b.post(`/requests/${id}/claim`);
    await b.post(`/requests/${id}/submit`, { result: "Done" });
    h.clock.advance(2 * 86_400_000 + 1000);
    const page = await b.get("/requests/mine?status=accepted");
    expect(page.text).toContain(`href="/requests/${id}"`);
    expect(page.text).toContain("Accepted");
  });

  test("an empty result is refused (400) with the form kept; a second claim is 409; an author cannot claim their own", async () => {
    const id = await request(h, asker);
    const b = await signIn(person);
    await b.get(`/requests/${id}`);
    await b.post(`/requests/${id}/claim`);
    const empty = await b.post(`/requests/${id}/submit`, { result: "   ", hours_spent: "2" });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('role="alert"');
    expect(empty.text).toContain('value="2"');
    const bad = await b.post(`/requests/${id}/submit`, { result: "x", hours_spent: "-1" });
    expect(bad.status).toBe(422);
    expect((await b.post(`/requests/${id}/claim`)).status).toBe(409);
    const o = await signIn(other);
    await o.get(`/requests/${id}`);
    expect((await o.post(`/requests/${id}/claim`)).status).toBe(409);

    const mineId = await request(h, other);
    expect((await o.get(`/requests/${mineId}`)).text).toContain("This is your request.");
    expect((await o.post(`/requests/${mineId}/claim`)).status).toBe(400);
  });

  test("abandoning opens the request again; a stranger cannot submit or abandon (403)", async () => {
    const id = await request(h, asker);
    const b = await signIn(person);
    await b.get(`/requests/${id}`);
    await b.post(`/requests/${id}/claim`);
    const o = await signIn(other);
    await o.get(`/requests/${id}`);
    const before = dbState(h);
    expect((await o.post(`/requests/${id}/submit`, { result: "Mine now" })).status).toBe(403);
    expect((await o.post(`/requests/${id}/abandon`)).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const a = await b.post(`/requests/${id}/abandon`);
    expect(a.status).toBe(303);
    expect(claimRow(id, person.id)?.status).toBe("abandoned");
    expect(postStatus(h, id)).toBe("open");
    expect((await b.get("/requests")).text).toContain(`href="/requests/${id}"`);
  });

  test("forms without the CSRF token are refused (403) and change nothing", async () => {
    const id = await request(h, asker);
    const b = await signIn(person);
    await b.get(`/requests/${id}`);
    const before = dbState(h);
    expect((await b.post(`/requests/${id}/claim`, {}, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });
});

describe("/requests/mine", () => {
  test("lists the person's active claims, filters by status, and none of another's", async () => {
    const a = await request(h, asker, {}, { title: "First errand" });
    const c = await request(h, asker, {}, { title: "Second errand" });
    const b = await signIn(person);
    await b.get("/requests");
    await b.post(`/requests/${a}/claim`);
    await b.post(`/requests/${c}/claim`);
    await b.post(`/requests/${c}/abandon`);
    let page = await b.get("/requests/mine");
    expect(page.text).toContain("First errand");
    expect(page.text).not.toContain("Second errand");
    page = await b.get("/requests/mine?status=abandoned");
    expect(page.text).toContain("Second errand");
    const o = await signIn(other);
    expect((await o.get("/requests/mine")).text).toContain("Nothing here.");
  });
});
