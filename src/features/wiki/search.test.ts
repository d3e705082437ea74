// Wiki pages in GET /api/v1/search (spec Part 1 §4.7; docs/decisions.md §89): found through the
// full-text index, readable pages only, edits and deletions followed, at most ten, left out of
// post-only searches, the colony filter applied, plain-text excerpts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { makeColony } from "../colonies/fixtures";
import { setApproval, type ColonyRow } from "../colonies/service";
import { wikiApi, type WikiApi } from "./fixtures";

for (const readers of [0, 1]) {
  describe(`wiki pages in search, reads ${readers ? "on a reader thread" : "inline"}`, () => {
    let h: Harness;
    let w: WikiApi;
    let founder: TestUser;
    let member: TestUser;
    let stranger: TestUser;
    let admin: TestUser;
    let pub: ColonyRow;
    let priv: ColonyRow;
    let off: ColonyRow;

    beforeAll(async () => {
      h = setup({ rateLimitMultiplier: 0 }, { readers });
      w = wikiApi(h);
      founder = await h.user();
      member = await h.user();
      stranger = await h.user();
      admin = await h.user({ admin: true });
      pub = makeColony(h, founder, { name: "open-garden" });
      priv = makeColony(h, founder, { name: "secret-garden", type: "private" });
      off = makeColony(h, founder, { name: "closed-garden" });
      await h.req("POST", `/api/v1/colonies/by-name/${priv.name}/join`, { token: member.token });
      setApproval(h.ctx, { id: founder.id, isAdmin: false }, priv.id, member.id, true);
      const pages: [string, string, string, string?][] = [
        ["Marmots of the Alps", "marmots", "Marmots whistle.\n\nThey   hibernate **long**."],
        ["Alpine flowers", "alpine-flowers", "Edelweiss grows where marmots dig."],
        ["Garden marmot", "garden-marmot", "A marmot in the open garden.", pub.name],
        ["Secret marmot", "secret-marmot", "A marmot nobody outside may see.", priv.name],
        ["Closed marmot", "closed-marmot", "A marmot of a wiki switched off.", off.name],
      ];
      for (const [title, slug, content, colony] of pages) expect((await w.create(founder, { title, slug, content, colony })).status).toBe(201);
      expect((await h.req("PATCH", `/api/v1/colonies/${off.id}`, { token: founder.token, body: { wiki_edit_policy: "off" } })).status).toBe(200);
    });

    afterAll(() => h.close());

    const search = (q: string, u: TestUser | null = null, query: Record<string, string> = {}) => h.req("GET", "/api/v1/search", { token: u?.token ?? null, query: { q, ...query } });
    const slugs = (r: { body: any }) => r.body.wiki_pages.map((p: any) => p.slug);

    test("title matches first; each hit {id, slug, title, colony_name, excerpt, url}; the excerpt is plain text", async () => {
      const r = await search("marmots");
      expect(r.status).toBe(200);
      // The two pages with the word in their title before the one with it in the content only.
      expect(slugs(r).slice(0, 2).sort()).toEqual(["garden-marmot", "marmots"]);
      expect(slugs(r)[2]).toBe("alpine-flowers");
      expect(r.body.wiki_pages.find((p: any) => p.slug === "marmots")).toEqual({
        id: expect.any(String),
        slug: "marmots",
        title: "Marmots of the Alps",
        colony_name: null,
        excerpt: "Marmots whistle. They hibernate **long**.",
        url: "http://localhost/api/v1/wiki/marmots",
      });
      expect(r.body.wiki_pages.find((p: any) => p.slug === "garden-marmot")).toMatchObject({ colony_name: pub.name, url: `http://localhost/api/v1/wiki/garden-marmot?colony=${pub.name}` });
    });

    test("private colonies' pages for their members and site admins only; a wiki switched off for nobody", async () => {
      expect(slugs(await search("marmot", stranger))).not.toContain("secret-marmot");
      expect(slugs(await search("marmot", member))).toContain("secret-marmot");
      expect(slugs(await search("marmot", admin))).toContain("secret-marmot");
      for (const u of [null, founder, admin]) expect(slugs(await search("marmot", u))).not.toContain("closed-marmot");
    });

    test("empty when the search is for posts only (post_type or member_colonies); the colony filter keeps that colony's pages", async () => {
      expect((await search("marmot", null, { post_type: "finding" })).body.wiki_pages).toEqual([]);
      expect((await search("marmot", member, { member_colonies: "true" })).body.wiki_pages).toEqual([]);
      expect(slugs(await search("marmot", null, { colony: pub.name }))).toEqual(["garden-marmot"]);
      expect(slugs(await search("marmot", member, { colony_id: priv.id }))).toEqual(["secret-marmot"]);
      expect(slugs(await search("marmot", stranger, { colony: priv.name }))).toEqual([]);
    });

    test("edits are searched as they are now; deleted pages leave the index and restored ones come back", async () => {
      // A page of its own: the other tests search the pages made above as they were made.
      expect((await w.create(founder, { title: "Mountain herbs", slug: "mountain-herbs", content: "Edelweiss grows where ibexes climb." })).status).toBe(201);
      expect(slugs(await search("ibexes"))).toEqual(["mountain-herbs"]);
      await w.put(founder, "mountain-herbs", { content: "Edelweiss and gentians." });
      expect(slugs(await search("ibexes"))).not.toContain("mountain-herbs");
      expect(slugs(await search("gentians"))).toEqual(["mountain-herbs"]);
      await w.remove(admin, "mountain-herbs");
      expect(slugs(await search("gentians"))).toEqual([]);
      await w.restore(admin, "mountain-herbs");
      expect(slugs(await search("gentians"))).toEqual(["mountain-herbs"]);
      h.ctx.db.$client.run("INSERT INTO wiki_pages_fts(wiki_pages_fts, rank) VALUES('integrity-check', 1)");
    });

    test("at most ten pages", async () => {
      for (let i = 0; i < 12; i++) await w.create(founder, { title: `Quokka ${i}`, slug: `quokka-${i}`, content: "quokka" });
      expect((await search("quokka")).body.wiki_pages.length).toBe(10);
    });
  });
}
