// Debates on the web: the list to anyone, starting one (the karma floor refused on the form),
// taking the other side, arguing in turns (out of turn is the service's 409 with the draft
// kept), the vote during its 48 hours by the test clock (a debater's vote 403, a late one 409)
// and the outcome, and deleting one's own before anyone accepts it.
import { beforeAll, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { setup, type TestUser } from "../../test/harness";
import { HOUR } from "../core/clock";
import { ageAccount } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

const h = setup();
let creator: TestUser;
let opponent: TestUser;
let voter: TestUser;
let newcomer: TestUser;

beforeAll(async () => {
  creator = await human(h);
  opponent = await human(h);
  voter = await human(h);
  newcomer = await human(h);
  for (const u of [creator, opponent, voter, newcomer]) ageAccount(h, u, 48);
  // Debates need 5 karma; the newcomer has none.
  for (const u of [creator, opponent, voter]) h.ctx.db.$client.query("update users set karma = 20 where id = ?").run(u.id);
});

const debateCount = () => (h.ctx.db.$client.query("select count(*) as n from debates").get() as { n: number }).n;

async function start(b: Browser, proposition = "Raised beds beat rows for small gardens") {
  await b.get("/debates/new");
  return b.post("/debates/new", { proposition, description: "Think <soil>.", creator_side: "for" });
}

describe("reading", () => {
  test("anyone gets the list, without forms", async () => {
    const r = await new Browser(h).get("/debates");
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Debates</h1>");
    expect(r.text).not.toContain('name="csrf"');
  });

  test("an unknown debate is 404", async () => {
    expect((await new Browser(h).get("/debates/0190f0f0-0000-7000-8000-000000000000")).status).toBe(404);
  });
});

describe("starting", () => {
  test("below the karma floor the form shows the service's 403 and nothing is written", async () => {
    const b = await signedInBrowser(h, newcomer.username);
    const before = debateCount();
    const r = await start(b);
    expect(r.status).toBe(403);
    expect(r.text).toContain("Starting a debate needs at least 5 karma");
    expect(r.text).toContain("Raised beds beat rows for small gardens");
    expect(debateCount()).toBe(before);
  });

  test("the creator deletes an open debate; once accepted it cannot be (409)", async () => {
    const c = await signedInBrowser(h, creator.username);
    const one = (await start(c, "Compost should be turned weekly")).location!.split("?")[0];
    await c.get(one);
    const gone = await c.post(`${one}/delete`);
    expect(gone.status).toBe(303);
    expect(gone.location).toBe("/debates?notice=deleted");
    expect((await c.get(one)).status).toBe(404);

    const two = (await start(c, "Mulch beats bare soil every time")).location!.split("?")[0];
    const o = await signedInBrowser(h, opponent.username);
    await o.get(two);
    expect((await o.post(`${two}/accept`)).status).toBe(303);
    await c.get(two);
    const late = await c.post(`${two}/delete`);
    expect(late.status).toBe(409);
    expect(late.text).toContain("A debate that has been accepted cannot be deleted");
  });
});

describe("a whole debate", () => {
  test("accepted, argued in turns, voted on for 48 hours, and closed with its winner", async () => {
    const c = await signedInBrowser(h, creator.username);
    const made = await start(c);
    expect(made.status).toBe(303);
    const path = made.location!.split("?")[0];
    const page = await c.get(made.location!);
    expect(page.text).toContain("Your debate is open");
    expect(page.text).toContain("Think &lt;soil&gt;.");

    // The opponent takes the other side; it is then the creator's turn, not theirs.
    const o = await signedInBrowser(h, opponent.username);
    const seen = await o.get(path);
    expect(seen.text).toContain("Take the other side (against)");
    expect((await o.post(`${path}/accept`)).status).toBe(303);
    const waiting = await o.get(path);
    expect(waiting.text).not.toContain("Make the argument");
    const early = await o.post(`${path}/argue`, { body: "Rows are cheaper to dig and to keep." });
    expect(early.status).toBe(409);
    expect(early.text).toContain("It is not your turn");
    expect(early.text).toContain("Rows are cheaper to dig and to keep.");

    for (let turn = 1; turn <= 6; turn++) {
      const b = turn % 2 === 1 ? c : o;
      const p = await b.get(path);
      expect(p.text).toContain("Make the argument");
      const r = await b.post(`${path}/argue`, { body: `Argument number ${turn}, with <care>.` });
      expect(r.status).toBe(303);
    }
    const voting = await new Browser(h).get(path);
    expect(voting.text).toContain("Arguments (6 of 6)");
    expect(voting.text).toContain("Argument number 6, with &lt;care&gt;.");
    expect(voting.text).toContain("Voting ends");

    // A debater cannot vote; anyone else can, once per person.
    await c.get(path);
    const own = await c.post(`${path}/vote`, { voted_for: "creator" });
    expect(own.status).toBe(403);
    expect(own.text).toContain("Debaters cannot vote in their own debate");
    const v = await signedInBrowser(h, voter.username);
    const ballot = await v.get(path);
    expect(ballot.text).toContain("Who argued better?");
    expect(ballot.text).toContain("Voting again replaces your vote.");
    expect((await v.post(`${path}/vote`, { voted_for: "opponent" })).status).toBe(303);
    const voted = (await v.get(path)).text;
    expect(voted).toMatch(/: 0 · [^<]*\(against\): 1/);
    // The voter sees their own vote; nobody else sees it.
    expect(voted).toMatch(/Your vote: for [^<]*\(against\)\. Voting again replaces it\./);
    expect((await new Browser(h).get(path)).text).not.toContain("Your vote");

    // After the 48 hours, the vote is closed and the outcome shown.
    h.clock.advance(49 * HOUR);
    const late = await v.post(`${path}/vote`, { voted_for: "creator" });
    expect(late.status).toBe(409);
    expect(late.text).toContain("Votes are taken only during the 48-hour voting period");
    const closed = await new Browser(h).get(path);
    expect(closed.text).toContain("won, arguing against");
  });
});
