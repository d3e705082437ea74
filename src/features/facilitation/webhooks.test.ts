// The facilitation webhook events of Part 2 §6.2, delivered to a real receiver in the reference
// catalogue's shapes: facilitation_claimed and facilitation_submitted to the requesting author,
// facilitation_accepted, facilitation_revision_requested and facilitation_deadline to the human
// claimer, facilitation_matched to a matched human — and to nobody else.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { receiverHooks } from "../webhooks/fixtures";
import { startReceiver } from "../webhooks/test-receiver";
import { api, cast, ok, request } from "./fixtures";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const rx = startReceiver();
afterAll(() => rx.stop());
beforeEach(() => rx.clear());

const { hook, flush, got } = receiverHooks(h, rx, "f");
const f = api(h);
const EVENTS = ["facilitation_claimed", "facilitation_submitted", "facilitation_accepted", "facilitation_revision_requested", "facilitation_deadline", "facilitation_matched"];
const TITLE = "Call the venue for us";
/** Deliveries to one webhook go out side by side and may arrive in any order: compared sorted. */
const sorted = <T extends { event: string; result?: string }>(bodies: T[]) => [...bodies].sort((x, y) => `${x.event} ${x.result ?? ""}`.localeCompare(`${y.event} ${y.result ?? ""}`));

describe("facilitation webhooks", () => {
  test("claim, submit, revision, resubmit and accept reach the author and the claimer in the catalogue shapes", async () => {
    const c = await cast(h);
    const [wAuthor, wHuman, wOther] = [await hook(c.author, EVENTS), await hook(c.human, EVENTS), await hook(c.stranger, EVENTS)];
    const id = await request(h, c.author);
    const claim = await ok(f.claim(c.human, id));
    await ok(f.submit(c.human, id, { result: "x".repeat(2500) }));
    await ok(f.revise(c.author, id, { revision_notes: "Shorter, please." }));
    await ok(f.submit(c.human, id, { result: "Open Sundays 10-4." }));
    await ok(f.accept(c.author, id));
    await flush();
    const base = { post_id: id, post_title: TITLE, claim_id: claim.id };
    expect(sorted(got(wAuthor))).toEqual(
      sorted([
        { event: "facilitation_claimed", ...base, human_id: c.human.id, human_name: c.human.username },
        { event: "facilitation_submitted", ...base, human_id: c.human.id, human_name: c.human.username, result: "x".repeat(2000) },
        { event: "facilitation_submitted", ...base, human_id: c.human.id, human_name: c.human.username, result: "Open Sundays 10-4." },
      ]),
    );
    expect(sorted(got(wHuman))).toEqual(
      sorted([
        { event: "facilitation_revision_requested", ...base, requester: c.author.username, revision_notes: "Shorter, please." },
        { event: "facilitation_accepted", ...base, accepter: c.author.username },
      ]),
    );
    expect(got(wOther)).toEqual([]);
  });

  test("facilitation_deadline to the claimer and facilitation_matched to the matched human", async () => {
    const c = await cast(h);
    expect((await h.req("PUT", "/api/v1/users/me", { token: c.human2.token, body: { capabilities: { skills: ["notary"] } } })).status).toBe(200);
    const [wHuman, wMatched, wAuthor] = [await hook(c.human, EVENTS), await hook(c.human2, EVENTS), await hook(c.author, EVENTS)];
    const deadline = new Date(h.clock.now() + 2 * DAY).toISOString().slice(0, 10);
    const id = await request(h, c.author, { deadline, required_skills: ["Notary"] });
    await ok(f.claim(c.human, id));
    h.clock.advance(Date.parse(`${deadline}T00:00:00Z`) - h.clock.now());
    await h.ctx.jobs.runDue();
    await flush();
    expect(got(wHuman)).toEqual([{ event: "facilitation_deadline", post_id: id, post_title: TITLE, deadline }]);
    expect(got(wMatched)).toEqual([{ event: "facilitation_matched", post_id: id, post_title: TITLE, match_score: 100 }]);
    // The author hears of the claim only.
    expect(got(wAuthor).map((b) => b.event)).toEqual(["facilitation_claimed"]);
  });
});
