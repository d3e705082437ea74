// The calendar on the web: upcoming events by month to anyone with the iCalendar address, a new
// event through its form (the service's refusals on it: an end before the start, a colony one is
// not a member of), answering and withdrawing, a full event refusing going (409), answers closed
// once the event is over by the test clock, a private colony's event hidden, and a feed key
// shown once that the API's feed takes.
import { beforeAll, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { setup, type TestUser } from "../../test/harness";
import { HOUR, iso } from "../core/clock";
import { ageAccount, makeColony } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

const h = setup();
let host: TestUser;
let guest: TestUser;
let third: TestUser;

beforeAll(async () => {
  host = await human(h);
  guest = await human(h);
  third = await human(h);
  for (const u of [host, guest, third]) ageAccount(h, u, 48);
});

/** A datetime-local value `hours` from the test clock's now. */
const at = (hours: number) => iso(h.clock.now() + hours * HOUR).slice(0, 16);
const eventCount = () => (h.ctx.db.$client.query("select count(*) as n from calendar_events").get() as { n: number }).n;

async function schedule(b: Browser, fields: Record<string, string> = {}) {
  await b.get("/events/new");
  return b.post("/events/new", { title: "Seed swap", starts_at: at(48), ends_at: at(50), location: "The <shed>", max_attendees: "", colony: "", description: "Bring **seeds**.", ...fields });
}

describe("reading", () => {
  test("anyone gets the calendar, with the public iCalendar address and no form", async () => {
    const r = await new Browser(h).get("/events");
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Events</h1>");
    expect(r.text).toContain('href="http://localhost/api/v1/events.ics"');
    expect(r.text).not.toContain('name="csrf"');
  });

  test("an unknown event is 404", async () => {
    expect((await new Browser(h).get("/events/0190f0f0-0000-7000-8000-000000000000")).status).toBe(404);
  });
});

describe("scheduling", () => {
  test("an event made through the form is listed under its month, its description rendered", async () => {
    const b = await signedInBrowser(h, host.username);
    const r = await schedule(b, { title: "Seed swap <spring>" });
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/events\/[0-9a-f-]{36}\?notice=created$/);
    const p = await b.get(r.location!);
    expect(p.text).toContain("<strong>seeds</strong>");
    expect(p.text).toContain("The &lt;shed&gt;");
    const list = await new Browser(h).get("/events");
    expect(list.text).toContain(`href="${r.location!.split("?")[0]}"`);
    expect(list.text).toContain("Seed swap &lt;spring&gt;");
    expect(list.text).toMatch(/<h2 id="m-January-2026">January 2026<\/h2>/);
  });

  test("an end before the start and a colony one is not a member of are the service's refusals on the form", async () => {
    const b = await signedInBrowser(h, guest.username);
    const before = eventCount();
    const backwards = await schedule(b, { starts_at: at(50), ends_at: at(48) });
    expect(backwards.status).toBe(422);
    expect(backwards.text).toContain("ends_at must be after starts_at");
    expect(backwards.text).toContain('value="Seed swap"');
    const colony = makeColony(h, host);
    const outsider = await schedule(b, { colony: colony.name });
    expect(outsider.status).toBe(403);
    expect(outsider.text).toContain("Only members of this colony can schedule its events");
    expect(eventCount()).toBe(before);
  });
});

describe("answering", () => {
  test("going, then maybe, then withdrawn; a full event refuses going with 409; answers close when it is over", async () => {
    const b = await signedInBrowser(h, host.username);
    const made = await schedule(b, { title: "Bench building", max_attendees: "1", starts_at: at(24), ends_at: at(26) });
    const path = made.location!.split("?")[0];

    const g = await signedInBrowser(h, guest.username);
    await g.get(path);
    const going = await g.post(`${path}/rsvp`, { status: "going" });
    expect(going.status).toBe(303);
    const seen = await g.get(going.location!);
    expect(seen.text).toContain("Your answer: going.");
    expect(seen.text).toContain("1 going of at most 1");

    const t = await signedInBrowser(h, third.username);
    await t.get(path);
    const full = await t.post(`${path}/rsvp`, { status: "going" });
    expect(full.status).toBe(409);
    expect(full.text).toContain("This event is full: 1 going");
    expect((await t.post(`${path}/rsvp`, { status: "maybe" })).status).toBe(303);

    expect((await g.post(`${path}/rsvp`, { status: "maybe" })).status).toBe(303);
    expect((await g.get(path)).text).toContain("Your answer: maybe.");
    expect((await g.post(`${path}/rsvp/remove`)).status).toBe(303);
    expect((await g.get(path)).text).toContain("You have not answered yet.");

    // Over by the clock: answers are closed, and the form says so.
    h.clock.advance(27 * HOUR);
    const over = await g.get(path);
    expect(over.text).toContain("This event is over: answers are closed.");
    const late = await g.post(`${path}/rsvp`, { status: "going" });
    expect(late.status).toBe(409);
    expect(late.text).toContain("RSVPs are closed");
    expect((await new Browser(h).get("/events?past=1")).text).toContain("Bench building");
  });

  test("a private colony's event is 404 to others; its author deletes it, a stranger cannot (403)", async () => {
    const founder = await human(h);
    ageAccount(h, founder, 48);
    const hidden = makeColony(h, founder, "private");
    const f = await signedInBrowser(h, founder.username);
    const made = await schedule(f, { title: "Members' supper", colony: hidden.name, starts_at: at(5 * 24), ends_at: "" });
    expect(made.status).toBe(303);
    const path = made.location!.split("?")[0];
    expect((await new Browser(h).get(path)).status).toBe(404);
    expect((await new Browser(h).get("/events")).text).not.toContain("Members&#x27; supper");

    const open = await schedule(f, { title: "Open supper", starts_at: at(5 * 24), ends_at: "" });
    const openPath = open.location!.split("?")[0];
    const s = await signedInBrowser(h, guest.username);
    await s.get(openPath);
    const refused = await s.post(`${openPath}/delete`);
    expect(refused.status).toBe(403);
    await f.get(openPath);
    const gone = await f.post(`${openPath}/delete`);
    expect(gone.status).toBe(303);
    expect((await f.get(openPath)).status).toBe(404);
  });
});

describe("the private calendar address", () => {
  test("is shown once, and the API's feed takes it", async () => {
    const b = await signedInBrowser(h, guest.username);
    const list = await b.get("/events");
    expect(list.text).toContain("Get a private address");
    const r = await b.post("/events/feed-key");
    expect(r.status).toBe(200);
    const m = /value="http:\/\/localhost\/api\/v1\/events\.ics\?key=([^"]+)"/.exec(r.text);
    expect(m).not.toBeNull();
    const feed = await h.req("GET", "/api/v1/events.ics", { query: { key: m![1] } });
    expect(feed.status).toBe(200);
    expect(feed.headers.get("content-type")).toContain("text/calendar");
    // Asking again replaces it: the old address is refused.
    await b.get("/events");
    await b.post("/events/feed-key");
    expect((await h.req("GET", "/api/v1/events.ics", { query: { key: m![1] } })).status).toBe(401);
  });
});

describe("changing an event", () => {
  test("its author changes it through the form (an emptied field is cleared); someone else's change is the service's 403", async () => {
    const b = await signedInBrowser(h, host.username);
    const path = (await schedule(b, { title: "Pruning day", max_attendees: "10" })).location!.split("?")[0];
    const form = await b.get(`${path}/edit`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="Pruning day"');
    expect(form.text).toContain('value="10"');
    const r = await b.post(`${path}/edit`, { title: "Pruning morning", starts_at: at(72), ends_at: "", location: "", max_attendees: "", description: "Bring <shears>." });
    expect(r.status).toBe(303);
    const p = await b.get(r.location!);
    expect(p.text).toContain("Pruning morning");
    expect(p.text).toContain("Bring &lt;shears&gt;.");
    expect(p.text).not.toContain("of at most");
    expect(p.text).not.toContain("The &lt;shed&gt;");

    const s = await signedInBrowser(h, guest.username);
    await s.get(`${path}/edit`);
    const refused = await s.post(`${path}/edit`, { title: "Taken over", starts_at: at(72), ends_at: "", location: "", max_attendees: "", description: "" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Only the event&#39;s author can change it");
    expect((await b.get(path)).text).toContain("Pruning morning");
  });
});
