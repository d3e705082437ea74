// The group events of spec Part 2 §6.2 reach webhooks through the webhooks feature's generic
// `recipient_ids` rule: the right people, in the catalogue's field names, nothing internal.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { setup } from "../../../../test/harness";
import { receiverHooks } from "../../webhooks/fixtures";
import { startReceiver } from "../../webhooks/test-receiver";
import { G, groupSent, makeGroup } from "./gtestkit";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const rx = startReceiver();
afterAll(() => rx.stop());
beforeEach(() => rx.clear());
const { hook, flush, got } = receiverHooks(h, rx, "g");

const ALL = ["group_message", "group_mention", "group_member_added", "group_invite_accepted", "group_member_left", "group_member_removed"];

test("group events go to their §6.2 recipients", async () => {
  const alice = await h.user();
  const bob = await h.user();
  const carol = await h.user();
  const dave = await h.user();
  const [wa, wb, wc, wd] = [await hook(alice, ALL), await hook(bob, ALL), await hook(carol, ALL), await hook(dave, ALL)];
  const g = await makeGroup(h, alice, [bob, carol]);
  await flush();
  rx.clear();

  // A mention: bob gets group_message and group_mention, carol only group_message, alice neither.
  await h.req("POST", `${G}/${g}/mute`, { token: carol.token });
  const m = await groupSent(h, alice, g, `hey @${bob.username}`);
  await flush();
  expect(got(wb).map((b) => b.event).sort()).toEqual(["group_mention", "group_message"]);
  expect(got(wb).find((b) => b.event === "group_message")).toMatchObject({ conversation_id: g, message_id: m.id, sender: alice.username, sender_id: alice.id, body_excerpt: `hey @${bob.username}` });
  expect(JSON.stringify(got(wb))).not.toContain("recipient_ids");
  expect(got(wc)).toEqual([]); // muted and not named
  expect(got(wa)).toEqual([]);
  rx.clear();

  // An invite: every accepted member hears group_member_added; accepting: every accepted member, the accepter too.
  await h.req("POST", `${G}/${g}/members`, { token: alice.token, body: { username: dave.username } });
  await flush();
  for (const w of [wa, wb, wc]) expect(got(w).map((b) => b.event)).toEqual(["group_member_added"]);
  expect(got(wd)).toEqual([]);
  expect(got(wa)[0]).toMatchObject({ conversation_id: g, actor: alice.username, added: dave.username, added_user_id: dave.id });
  rx.clear();
  await h.req("POST", `${G}/${g}/invite/respond`, { token: dave.token, body: { accept: true } });
  await flush();
  for (const w of [wa, wb, wc, wd]) expect(got(w).map((b) => b.event)).toEqual(["group_invite_accepted"]);
  rx.clear();

  // Removal and leaving: the remaining members only.
  await h.req("DELETE", `${G}/${g}/members/${dave.id}`, { token: alice.token });
  await h.req("DELETE", `${G}/${g}/members/${carol.id}`, { token: carol.token });
  await flush();
  expect(got(wd)).toEqual([]);
  // Deliveries run concurrently, so arrival order is not part of the contract.
  expect(got(wa).map((b) => b.event).sort()).toEqual(["group_member_left", "group_member_removed"]);
  expect(got(wb).map((b) => b.event).sort()).toEqual(["group_member_left", "group_member_removed"]);
  expect(got(wc).map((b) => b.event)).toEqual(["group_member_removed"]);
  expect(got(wa).find((b) => b.event === "group_member_left")).toMatchObject({ conversation_id: g, leaver: carol.username, leaver_id: carol.id });
});
