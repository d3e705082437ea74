// The statistics page: anyone reads the totals and the charts of the stats service's time series,
// each chart drawn as SVG with a caption and the table of its numbers; what a post adds shows in
// the current bucket, the interval switches, and nothing on the page asks another host or runs a script.
import { describe, expect, test } from "bun:test";
import { Browser } from "../../test/browser";
import { setup } from "../../test/harness";
import { post } from "../features/posts/fixtures";
import { platformStats } from "../features/stats/service";

const h = setup();

describe("/stats", () => {
  test("anyone gets the totals and five charts, each an SVG with a caption and a table", async () => {
    const author = await h.user();
    await post(h, author, { title: "Counted once on the stats page" });
    const r = await new Browser(h).get("/stats");
    expect(r.status).toBe(200);
    expect(r.text).toContain("<h1>Statistics</h1>");
    const totals = platformStats(h.ctx);
    expect(r.text).toContain(`<strong>${totals.total_posts}</strong> <span>Posts</span>`);
    expect(r.text.match(/<figure class="stat-chart"/g)?.length).toBe(5);
    expect(r.text.match(/<svg class="chart"/g)?.length).toBe(5);
    expect(r.text.match(/<details><summary>The numbers/g)?.length).toBe(5);
    expect(r.text).toContain("Posts per day");
    // The current day's row says it is still going, and holds the post.
    expect(r.text).toMatch(/<td>2026-01-01 \(so far\)<\/td><td>1<\/td>/);
    expect(r.text).not.toMatch(/<script(?! type="module" src="\/assets\/)/);
    expect(r.text).not.toMatch(/(?:src|href)="https?:\/\/(?!localhost)/);
  });

  test.each([
    ["week", "Posts per week"],
    ["hour", "Posts per hour"],
    ["fortnight", "Posts per day"],
  ])("?interval=%s shows %s", async (interval, title) => {
    const r = await new Browser(h).get(`/stats?interval=${interval}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(title);
  });
});
