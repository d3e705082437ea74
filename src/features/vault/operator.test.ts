// An operator's actions on the vault of the agent they operate, and the agent's record of them
// (spec Part 3 §4.7 activity, §6 vault_file_deleted; docs/decisions.md §121): the deletion with its
// one notification, the operator's list, GET /vault/activity, who may do what, and an account's
// deletion taking its vault with it.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { refused } from "../../../test/expect";
import { expectAnswer, type Harness, type TestUser } from "../../../test/harness";
import { api, cast, claimed, notificationsOf, operated } from "../claims/fixtures";
import * as users from "../users/service";
import { drainIndexQueue, indexEntries } from "./fts";
import { VaultActivityOut } from "./routes";
import { sha, vaultKit } from "./testkit";

const kit = vaultKit("operator");
const { put, disk, dataDir } = kit;
let h: Harness;
beforeAll(() => (h = kit.h));
const opDelete = (u: TestUser | null, claimId: string, name: string) => h.req("DELETE", `/api/v1/claims/${claimId}/vault/files/${name}`, { token: u?.token });
const opList = (u: TestUser | null, claimId: string, query: Record<string, string> = {}) => h.req("GET", `/api/v1/claims/${claimId}/vault/files`, { token: u?.token, query });
const activity = (u: TestUser | null, query: Record<string, string | number> = {}) => h.req("GET", "/api/v1/vault/activity", { token: u?.token, query });
const fileNames = async (u: TestUser) => (await h.req("GET", "/api/v1/vault/files", { token: u.token })).body.items.map((f: any) => f.filename);
const vaultNotes = async (u: TestUser) => (await notificationsOf(h, u)).filter((n) => n.kind === "vault_file_deleted");

describe("the operator deletes a file of the agent's vault", () => {
  test("204; the file, its content and its index entry go; the agent is told once and sees it in its activity", async () => {
    const { human, agent } = await cast(h);
    const claim = await operated(h, human, agent);
    await put(agent, "notes/old.md", "obsolete plan");
    await put(agent, "keep.md", "kept");
    h.clock.advance(60_000);
    const r = await opDelete(human, claim.id, "notes/old.md");
    expect(r.status).toBe(204);
    expect(await fileNames(agent)).toEqual(["keep.md"]);
    expect(disk(agent)).toEqual([sha("kept")]);
    expect((await h.req("GET", "/api/v1/vault/search", { token: agent.token, query: { q: "obsolete" } })).body.total).toBe(0);
    expect((await h.req("GET", "/api/v1/vault/status", { token: agent.token })).body).toMatchObject({ used_bytes: 4, file_count: 1 });

    // Told at once, in the deleting transaction, and only once however often the outbox runs.
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    const notes = await vaultNotes(agent);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      actor_id: human.id,
      message: `@${human.username}, your operator, deleted "notes/old.md" from your vault`,
      meta: { filename: "notes/old.md", claim_id: claim.id, operator_username: human.username },
    });
    // The operator is not told of their own act.
    expect((await notificationsOf(h, human)).filter((n) => n.kind === "vault_file_deleted")).toEqual([]);

    const log = await activity(agent);
    expect(log.status).toBe(200);
    expectAnswer(VaultActivityOut, log.body);
    expect(log.body).toEqual({ items: [{ action: "delete", filename: "notes/old.md", actor_username: human.username, created_at: expect.any(String) }], total: 1 });
    // The operator's address is kept, never answered.
    const stored = h.ctx.db.$client.query("select actor_ip from vault_activity where agent_id = ?").get(agent.id) as { actor_ip: string | null };
    expect(stored.actor_ip).toBeTruthy();

    // A second deletion of the same name finds nothing: 404, and nobody is told again.
    await refused(h, () => opDelete(human, claim.id, "notes/old.md"), 404, "NOT_FOUND");
    await h.ctx.events.drain();
    expect(await vaultNotes(agent)).toHaveLength(1);
  });

  test("content shared with another file stays on disk; names with slashes, raw or encoded", async () => {
    const { human, agent } = await cast(h);
    const claim = await operated(h, human, agent);
    await put(agent, "a/one.md", "same");
    await put(agent, "b/two.md", "same");
    expect((await opDelete(human, claim.id, "a%2Fone.md")).status).toBe(204);
    expect(disk(agent)).toEqual([sha("same")]);
    expect((await opDelete(human, claim.id, "b/two.md")).status).toBe(204);
    expect(disk(agent)).toEqual([]);
    expect((await activity(agent)).body.items.map((i: any) => i.filename)).toEqual(["b/two.md", "a/one.md"]);
  });

  test("only the human of the agent's confirmed claim: everyone else is refused and nothing changes", async () => {
    const { human, agent, otherHuman, otherAgent, siteAdmin } = await cast(h);
    const claim = await operated(h, human, agent);
    await put(agent, "x.md", "x");
    expect((await opDelete(null, claim.id, "x.md")).status).toBe(401);
    await refused(h, () => opDelete(agent, claim.id, "x.md"), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => opDelete(otherAgent, claim.id, "x.md"), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => opDelete(otherHuman, claim.id, "x.md"), 404, "NOT_FOUND");
    await refused(h, () => opDelete(siteAdmin, claim.id, "x.md"), 404, "NOT_FOUND");
    await refused(h, () => opDelete(human, "0190c7e0-0000-7000-8000-000000000000", "x.md"), 404, "NOT_FOUND");
    await refused(h, () => opDelete(human, "not-a-uuid", "x.md"), 404, "NOT_FOUND");
    await refused(h, () => opDelete(human, claim.id, "missing.md"), 404, "NOT_FOUND");
    for (const bad of ["..%2Fx.md", "a%00.md", "%2Fetc%2Fpasswd.txt", "a%ZZ.md", "..%5Cx.md"]) await refused(h, () => opDelete(human, claim.id, bad), 400, "INVALID_INPUT");
    // A claim still pending, or another agent's file under this claim, is nothing to act on.
    const pendingAgent = await h.user();
    await put(pendingAgent, "p.md", "p");
    const pending = await claimed(h, otherHuman, pendingAgent);
    await refused(h, () => opDelete(otherHuman, pending.id, "p.md"), 404, "NOT_FOUND");
    await put(otherAgent, "theirs.md", "t");
    await refused(h, () => opDelete(human, claim.id, "theirs.md"), 404, "NOT_FOUND");
    expect(await fileNames(agent)).toEqual(["x.md"]);
    expect((await activity(agent)).body).toEqual({ items: [], total: 0 });
  });

  test("a withdrawn or rejected claim gives no power over the vault", async () => {
    const { human, agent } = await cast(h);
    await put(agent, "x.md", "x");
    const rejected = await claimed(h, human, agent);
    expect((await api(h).act(agent, rejected.id, "reject")).status).toBe(200);
    await refused(h, () => opDelete(human, rejected.id, "x.md"), 404, "NOT_FOUND");
    const withdrawn = await claimed(h, human, agent);
    expect((await api(h).withdraw(human, withdrawn.id)).status).toBe(200);
    await refused(h, () => opDelete(human, withdrawn.id, "x.md"), 404, "NOT_FOUND");
  });
});

describe("the operator's list of the agent's files", () => {
  test("metadata only, alphabetical, with the literal prefix; recorded as `list`", async () => {
    const { human, agent, otherHuman } = await cast(h);
    const claim = await operated(h, human, agent);
    for (const n of ["b.md", "a_b/x.md", "axb/y.md"]) await put(agent, n, `content of ${n}`);
    const r = await opList(human, claim.id);
    expect(r.status).toBe(200);
    expect(r.body.items.map((f: any) => f.filename)).toEqual(["a_b/x.md", "axb/y.md", "b.md"]);
    expect(r.body).toMatchObject({ total: 3, has_more: false });
    expect(Object.keys(r.body.items[0]).sort()).toEqual(["content_size", "created_at", "filename", "updated_at"]);
    expect((await opList(human, claim.id, { prefix: "a_" })).body.items.map((f: any) => f.filename)).toEqual(["a_b/x.md"]);
    expect((await activity(agent)).body.items).toEqual([
      { action: "list", filename: null, actor_username: human.username, created_at: expect.any(String) },
      { action: "list", filename: null, actor_username: human.username, created_at: expect.any(String) },
    ]);
    expect((await opList(null, claim.id)).status).toBe(401);
    await refused(h, () => opList(agent, claim.id), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => opList(otherHuman, claim.id), 404, "NOT_FOUND");
  });

  test("an operator's list and deletions share 60 an hour (429 after)", async () => {
    const { human, agent } = await cast(h);
    const claim = await operated(h, human, agent);
    await put(agent, "x.md", "x");
    for (let i = 0; i < 59; i++) expect((await opList(human, claim.id)).status).toBe(200);
    expect((await opDelete(human, claim.id, "x.md")).status).toBe(204);
    const limited = await opList(human, claim.id);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
  });
});

describe("GET /vault/activity", () => {
  test("newest first, paged by limit and offset with the total; own vault only", async () => {
    const { human, agent, otherAgent } = await cast(h);
    const claim = await operated(h, human, agent);
    for (let i = 0; i < 5; i++) {
      await put(agent, `f${i}.md`, `${i}`);
      h.clock.advance(1000);
      expect((await opDelete(human, claim.id, `f${i}.md`)).status).toBe(204);
    }
    const all = await activity(agent);
    expect(all.body.total).toBe(5);
    expect(all.body.items.map((i: any) => i.filename)).toEqual(["f4.md", "f3.md", "f2.md", "f1.md", "f0.md"]);
    const times = all.body.items.map((i: any) => Date.parse(i.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await activity(agent, { limit: 2, offset: 1 })).body).toEqual({ items: all.body.items.slice(1, 3), total: 5 });
    expect((await activity(agent, { offset: 10 })).body).toEqual({ items: [], total: 5 });
    for (const bad of [{ limit: 0 }, { limit: 101 }, { offset: -1 }] as Record<string, number>[]) expect((await activity(agent, bad)).status).toBe(422);
    // Another agent's log is its own.
    expect((await activity(otherAgent)).body).toEqual({ items: [], total: 0 });
  });

  test("the operator's username is null once that account is gone", async () => {
    const { human, agent } = await cast(h);
    const claim = await operated(h, human, agent);
    await put(agent, "x.md", "x");
    await opDelete(human, claim.id, "x.md");
    users.hardDelete(h.ctx, human.id);
    expect((await activity(agent)).body.items).toEqual([{ action: "delete", filename: "x.md", actor_username: null, created_at: expect.any(String) }]);
  });

  test("anonymous is 401; a human is 403 AUTH_AGENT_ONLY", async () => {
    expect((await activity(null)).status).toBe(401);
    const human = await h.user({ human: true });
    const r = await activity(human);
    expect([r.status, r.body.detail.code]).toEqual([403, "AUTH_AGENT_ONLY"]);
  });
});

describe("a deleted account's vault", () => {
  test("its files, index entries, activity and folder go when the account_deleted event is delivered", async () => {
    const { human, agent } = await cast(h);
    const claim = await operated(h, human, agent);
    await put(agent, "a.md", "gone soon");
    await put(agent, "b.md", "also");
    await opDelete(human, claim.id, "b.md");
    // A claimed agent has acted; a fresh one may delete itself (within 15 minutes, no activity).
    const fresh = await h.user();
    await put(fresh, "mine.md", "mine");
    await drainIndexQueue(h.ctx);
    expect((await indexEntries(h.ctx, "", 100_000)).filter((e) => e.user_id === fresh.id).map((e) => e.filename)).toEqual(["mine.md"]);
    h.ctx.db.$client.query("insert into vault_activity (id, agent_id, action, filename, actor_id, actor_ip, created_at) values ('act-x', ?, 'list', null, null, null, 0)").run(fresh.id);
    expect(existsSync(join(dataDir, "vault", fresh.id))).toBe(true);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: fresh.token })).status).toBe(204);
    await h.ctx.events.drain();
    const count = (sql: string) => (h.ctx.db.$client.query(sql).get(fresh.id) as { n: number }).n;
    expect(count("select count(*) as n from vault_files where user_id = ?")).toBe(0);
    expect(count("select count(*) as n from vault_activity where agent_id = ?")).toBe(0);
    await drainIndexQueue(h.ctx);
    expect((await indexEntries(h.ctx, "", 100_000)).filter((e) => e.user_id === fresh.id)).toEqual([]);
    expect(existsSync(join(dataDir, "vault", fresh.id))).toBe(false);
    // Others' vaults are untouched.
    expect(await fileNames(agent)).toEqual(["a.md"]);
  });
});
