// Time capsules on the web: sealing one through its form (an opening time too soon and negative
// karma are the service's refusals on the form), a sealed capsule's body hidden from others and
// shown to its author, shown to everyone once it opens by the test clock, the lists, and
// deleting one's own (someone else's is 404).
import { beforeAll, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { setup, type TestUser } from "../../test/harness";
import { HOUR, iso } from "../core/clock";
import { ageAccount } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

const h = setup();
let author: TestUser;
let reader: TestUser;

beforeAll(async () => {
  author = await human(h);
  reader = await human(h);
  for (const u of [author, reader]) ageAccount(h, u, 48);
});

const at = (hours: number) => iso(h.clock.now() + hours * HOUR).slice(0, 16);
const capsuleCount = () => (h.ctx.db.$client.query("select count(*) as n from time_capsules").get() as { n: number }).n;

async function seal(b: Browser, fields: Record<string, string> = {}) {
  await b.get("/capsules/new");
  return b.post("/capsules/new", { title: "To the gardeners of next spring", body: "The **leeks** were a <mistake>.", tags: "garden, #letters", reveal_at: at(48), ...fields });
}

describe("reading", () => {
  test("anyone gets the list, without forms", async () => {
    const r = await new Browser(h).get("/capsules");
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Time capsules</h1>");
    expect(r.text).not.toContain('name="csrf"');
  });

  test("one's own list needs signing in; an unknown capsule is 404", async () => {
    expect((await new Browser(h).get("/capsules/mine")).status).toBe(303);
    expect((await new Browser(h).get("/capsules/0190f0f0-0000-7000-8000-000000000000")).status).toBe(404);
  });
});

describe("sealing and opening", () => {
  test("sealed, the body is its author's alone; once open by the clock, everyone's", async () => {
    const a = await signedInBrowser(h, author.username);
    const r = await seal(a);
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/capsules\/[0-9a-f-]{36}\?notice=sealed$/);
    const path = r.location!.split("?")[0];
    const own = await a.get(r.location!);
    expect(own.text).toContain("<strong>leeks</strong>");
    expect(own.text).toContain("Only you can read it until then.");
    expect(own.text).toContain('<a href="/capsules?tag=letters">#letters</a>');
    expect((await new Browser(h).get("/capsules?tag=garden")).text).toContain(`href="${path}"`);
    expect((await new Browser(h).get("/capsules?tag=orchard")).text).not.toContain(`href="${path}"`);
    expect((await new Browser(h).get("/capsules?sort=revealing-soon")).text).toContain(`href="${path}"`);

    const other = await new Browser(h).get(path);
    expect(other.status).toBe(200);
    expect(other.text).toContain("To the gardeners of next spring");
    expect(other.text).toContain("Sealed until");
    expect(other.text).not.toContain("leeks");
    const list = await new Browser(h).get("/capsules?status=sealed");
    expect(list.text).toContain(`href="${path}"`);
    expect((await new Browser(h).get("/capsules?status=revealed")).text).not.toContain(`href="${path}"`);

    h.clock.advance(49 * HOUR);
    const opened = await new Browser(h).get(path);
    expect(opened.text).toContain("<strong>leeks</strong>");
    expect(opened.text).toContain("a &lt;mistake&gt;");
    expect(opened.text).toContain("Opened ");
    expect((await new Browser(h).get("/capsules?status=revealed")).text).toContain(`href="${path}"`);
  });

  test("an opening time less than 24 hours ahead, and negative karma, are refused on the form, nothing sealed", async () => {
    const a = await signedInBrowser(h, author.username);
    const before = capsuleCount();
    const soon = await seal(a, { reveal_at: at(2) });
    expect(soon.status).toBe(400);
    expect(soon.text).toContain("reveal_at must be between 24 hours and 365 days from now");
    expect(soon.text).toContain("The **leeks** were a &lt;mistake&gt;.");
    const tooMany = await seal(a, { tags: "a, b, c, d, e, f" });
    expect(tooMany.status).toBe(422);
    const grump = await human(h);
    ageAccount(h, grump, 48);
    h.ctx.db.$client.query("update users set karma = -3 where id = ?").run(grump.id);
    const g = await signedInBrowser(h, grump.username);
    const refused = await seal(g);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("needs karma of at least 0");
    expect(capsuleCount()).toBe(before);
  });

  test("its author deletes it; someone else's delete is 404", async () => {
    const a = await signedInBrowser(h, author.username);
    const path = (await seal(a, { title: "Short-lived capsule" })).location!.split("?")[0];
    const mine = await a.get("/capsules/mine");
    expect(mine.text).toContain("Short-lived capsule");
    const r = await signedInBrowser(h, reader.username);
    const seen = await r.get(path);
    expect(seen.text).not.toContain("Delete the capsule");
    expect((await r.post(`${path}/delete`)).status).toBe(404);
    await a.get(path);
    const gone = await a.post(`${path}/delete`);
    expect(gone.status).toBe(303);
    expect((await a.get(path)).status).toBe(404);
  });
});
