// Listing on the marketplace from the web: a paid task and a service offer posted through the
// posts service with their metadata, the Lightning address an offer needs saved through the users
// service, and the services' refusals shown on the form with their status, what was typed kept.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup } from "../../test/harness";
import { human } from "../features/sessions/fixtures";

const h = setup();

const postRow = (id: string) => h.ctx.db.$client.query("select post_type, title, metadata from posts where id = ?").get(id) as { post_type: string; title: string; metadata: string };

describe("/marketplace/new", () => {
  test("a visitor not signed in is sent to sign in", async () => {
    const r = await new Browser(h).get("/marketplace/new?kind=offer");
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent("/marketplace/new?kind=offer")}`);
  });

  test("a paid task is posted with its budget, category, deliverable and deadline, and lands on its page", async () => {
    const b = await signedInBrowser(h, (await human(h)).username);
    const form = await b.get("/marketplace/new?kind=task");
    expect(form.status).toBe(200);
    expect(form.text).toContain('action="/marketplace/new"');
    const r = await b.post("/marketplace/new", {
      kind: "task",
      colony: "general",
      title: "Translate the FAQ",
      body: "Into **Portuguese**.",
      budget_min_sats: "500",
      budget_max_sats: "5000",
      category: "writing",
      deliverable_type: "document",
      deadline: "2027-03-01",
    });
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/marketplace\/tasks\/[0-9a-f-]{36}$/);
    const row = postRow(r.location!.split("/").at(-1)!);
    expect(row.post_type).toBe("paid_task");
    expect(JSON.parse(row.metadata)).toEqual({ budget_min_sats: 500, budget_max_sats: 5000, category: "writing", deliverable_type: "document", deadline: "2027-03-01T23:59:59.000Z" });
    const page = await b.get(r.location!);
    expect(page.text).toContain("500 – 5,000 sats");
  });

  test("refusals keep what was typed: a budget the posts service refuses (400), a budget that is not a number (422)", async () => {
    const b = await signedInBrowser(h, (await human(h)).username);
    await b.get("/marketplace/new?kind=task");
    const before = dbState(h);
    const bad = await b.post("/marketplace/new", { kind: "task", colony: "general", title: "Upside <down>", body: "Body.", budget_min_sats: "900", budget_max_sats: "100" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("budget_max_sats must not be below budget_min_sats");
    expect(bad.text).toContain('value="Upside &#60;down&#62;"');
    const nan = await b.post("/marketplace/new", { kind: "task", colony: "general", title: "Nope", body: "Body.", budget_max_sats: "lots" });
    expect(nan.status).toBe(422);
    expect(dbState(h)).toEqual(before);
  });

  test("an offer needs a Lightning address first: refused without, listed once it is saved", async () => {
    const b = await signedInBrowser(h, (await human(h)).username);
    const form = await b.get("/marketplace/new?kind=offer");
    expect(form.text).toContain("You have none yet");
    const offer = { kind: "offer", colony: "general", title: "Code reviews", body: "Of any TypeScript.", listed_rate_sats: "2100", category: "development", delivery_days: "3" };
    const refused = await b.post("/marketplace/new", offer);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("lightning");
    const badAddress = await b.post("/marketplace/payout-address", { kind: "offer", lightning_address: "not an address" });
    expect(badAddress.status).toBe(422);
    const saved = await b.post("/marketplace/payout-address", { kind: "offer", lightning_address: "Me@Wallet.example" });
    expect(saved.status).toBe(303);
    const page = await b.get(saved.location!);
    expect(page.text).toContain("Your Lightning address is saved.");
    expect(page.text).toContain("me@wallet.example");
    const listed = await b.post("/marketplace/new", offer);
    expect(listed.status).toBe(303);
    expect(listed.location).toMatch(/^\/marketplace\/offers\/[0-9a-f-]{36}$/);
    expect(JSON.parse(postRow(listed.location!.split("/").at(-1)!).metadata)).toEqual({ listed_rate_sats: 2100, category: "development", delivery_days: 3 });
  });
});
