// Forecasts on the web: the list to anyone, a new forecast through its form (the service's
// refusals on the form with their status: a date not after today by the test clock, a short
// title; the schema's probability range), resolving by its author once the date has passed (a
// stranger's resolve is 403, a second one 400), a person's calibration and the leaderboard.
import { beforeAll, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { setup, type TestUser } from "../../test/harness";
import { DAY, iso } from "../core/clock";
import { callerOf } from "../features/auth/caller";
import * as forecasts from "../features/forecasts/service";
import { ageAccount } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";
import * as users from "../features/users/service";
import { probabilityOf } from "./forecast-routes";

const h = setup();
let author: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  author = await human(h);
  stranger = await human(h);
  for (const u of [author, stranger]) ageAccount(h, u, 48);
});

const day = (offsetDays: number) => iso(h.clock.now() + offsetDays * DAY).slice(0, 10);
const forecastCount = () => (h.ctx.db.$client.query("select count(*) as n from forecasts").get() as { n: number }).n;

async function publish(b: Browser, fields: Partial<Record<"title" | "body" | "probability" | "resolution_date", string>> = {}) {
  await b.get("/forecasts/new");
  return b.post("/forecasts/new", { title: "The beans sprout by Friday", body: "Planted <Monday>.", probability: "70", resolution_date: day(3), ...fields });
}

describe("reading", () => {
  test("anyone gets the list, with a way to sign in and no form", async () => {
    const r = await new Browser(h).get("/forecasts");
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Forecasts</h1>");
    expect(r.text).toContain("to make a forecast");
    expect(r.text).not.toContain('name="csrf"');
  });

  test("an unknown forecast and a malformed id are 404", async () => {
    expect((await new Browser(h).get("/forecasts/0190f0f0-0000-7000-8000-000000000000")).status).toBe(404);
    expect((await new Browser(h).get("/forecasts/nope")).status).toBe(404);
  });

  test("the new-forecast form sends a visitor who is not signed in to sign in", async () => {
    const r = await new Browser(h).get("/forecasts/new");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/login?next=%2Fforecasts%2Fnew");
  });
});

describe("publishing", () => {
  test("a forecast made through the form is shown with its probability, escaped, and listed", async () => {
    const b = await signedInBrowser(h, author.username);
    const r = await publish(b);
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/forecasts\/[0-9a-f-]{36}\?notice=created$/);
    const p = await b.get(r.location!);
    expect(p.text).toContain("The beans sprout by Friday");
    expect(p.text).toContain("<strong>70%</strong>");
    expect(p.text).toContain("Planted &lt;Monday&gt;.");
    expect(p.text).toContain("Your forecast is published.");
    expect((await new Browser(h).get("/forecasts")).text).toContain(`href="${r.location!.split("?")[0]}"`);
  });

  test.each([
    ["a resolution date of today (by the test clock)", { resolution_date: "today" }, 400, "resolution_date must be in the future"],
    ["a short title", { title: "Too short" }, 400, "10 to 300 characters"],
    ["a probability of 100%", { probability: "100" }, 422, "a percentage from 1 to 99"],
  ])("%s is refused on the form with its status, the text kept, nothing written", async (_name, fields, status, message) => {
    const b = await signedInBrowser(h, author.username);
    const before = forecastCount();
    const r = await publish(b, "resolution_date" in fields ? { ...fields, resolution_date: day(0) } : fields);
    expect(r.status).toBe(status);
    expect(r.text).toContain(message);
    expect(r.text).toContain("Planted &lt;Monday&gt;.");
    expect(forecastCount()).toBe(before);
  });

  test("the percentage becomes the API's probability", () => {
    expect(probabilityOf("70")).toBe(0.7);
    expect(probabilityOf(" 1 % ")).toBe(0.01);
    expect(probabilityOf("33.5")).toBe(0.335);
    for (const bad of ["0", "0.5", "99.5", "abc", "", "-3"]) expect(() => probabilityOf(bad)).toThrow();
  });
});

describe("resolving", () => {
  test("once the date has passed the page says so; a stranger's resolve is 403, the author's is final", async () => {
    const a = await signedInBrowser(h, author.username);
    const made = await publish(a, { resolution_date: day(2) });
    const path = made.location!.split("?")[0];
    expect((await a.get(path)).text).not.toContain("(passed:");
    h.clock.advance(3 * DAY);
    const due = await a.get(path);
    expect(due.text).toContain("(passed: waiting for its author to resolve it)");
    expect(due.text).toContain("It happened (yes)");

    const s = await signedInBrowser(h, stranger.username);
    const seen = await s.get(path);
    expect(seen.text).not.toContain("It happened (yes)");
    const refused = await s.post(`${path}/resolve`, { outcome: "yes" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Only the forecast&#39;s author or an admin may resolve it");

    await a.get(path);
    const r = await a.post(`${path}/resolve`, { outcome: "yes" });
    expect(r.status).toBe(303);
    const done = await a.get(r.location!);
    expect(done.text).toContain("Resolved: yes");
    expect(done.text).not.toContain("It happened (yes)");
    const again = await a.post(`${path}/resolve`, { outcome: "no" });
    expect(again.status).toBe(400);
    expect(again.text).toContain("already resolved");
  });
});

describe("calibration and the leaderboard", () => {
  test("five resolved forecasts put their author on the board, with their Brier score on their calibration page", async () => {
    const forecaster = await human(h);
    const caller = callerOf(users.findById(h.ctx, forecaster.id)!);
    for (const [p, yes] of [[0.9, true], [0.8, true], [0.3, false], [0.6, false], [0.7, true]] as const) {
      const f = forecasts.createForecast(h.ctx, caller, { title: `Forecast at ${p} probability`, probability: p, resolution_date: day(1) });
      forecasts.resolveForecast(h.ctx, caller, f.id, yes ? "yes" : "no");
    }
    const board = await new Browser(h).get("/forecasts/leaderboard");
    expect(board.status).toBe(200);
    expect(board.text).toContain(`href="/forecasts/people/${forecaster.username}"`);
    const expected = forecasts.calibration(h.ctx, forecaster.id).brier_score!;
    expect(board.text).toContain(expected.toFixed(4));
    const cal = await new Browser(h).get(`/forecasts/people/${forecaster.username}`);
    expect(cal.status).toBe(200);
    expect(cal.text).toContain(expected.toFixed(4));
    expect(cal.text).toContain("4 of 5");
    expect((await new Browser(h).get("/forecasts/people/nobody-by-this-name")).status).toBe(404);
  });
});
