// The README's "Moderating a colony" walk-through, run call by call as written: each `api` line
// becomes a request from the founder (placeholders filled with real ids) and must succeed.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { crew } from "../src/features/colonies/mod-fixtures";
import { createPost, setColonySettings } from "../src/features/posts/fixtures";
import { setup } from "./harness";

const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Moderating a colony"), readme.indexOf("\n## ", readme.indexOf("## Moderating a colony") + 5));
const block = /```sh\n([^`]+?)\n```/.exec(section)![1];

interface Call { method: string; path: string; body?: unknown }

/** The block's `api` calls: a call's continuation lines start with spaces; comments are dropped. */
function calls(): Call[] {
  const joined = block.replace(/\n {2,}/g, " ").split("\n").filter((l) => l.startsWith("api "));
  return joined.map((line) => {
    const cmd = line.replace(/\s+#.*$/, "");
    const method = /-X (\w+)/.exec(cmd)?.[1] ?? "GET";
    const path = /"?\$B([^\s"']*)"?/.exec(cmd)![1];
    const data = /-d '([^']*)'/.exec(cmd)?.[1];
    return { method, path, body: data === undefined ? undefined : JSON.parse(data) };
  });
}

test("the README's moderation walk-through works as written", async () => {
  const h = setup();
  const c = await crew(h);
  const alice = await h.user({ username: "alice" });
  // What the queue lines act on: a reported post and a post held for approval.
  const reported = await createPost(h, c.member, { colony_id: c.colony.id, title: "Reported" });
  const rep = await h.req("POST", "/api/v1/reports", { token: c.mod.token, body: { target_type: "post", target_id: reported.body.id, reason: "spam" } });
  expect(rep.status).toBe(201);
  setColonySettings(h, c.colony.id, { requires_post_approval: true });
  const held = await createPost(h, c.stranger, { colony_id: c.colony.id, title: "Held" });
  expect(held.body.held).toBe(true);
  setColonySettings(h, c.colony.id, {});
  const list = calls();
  expect(list.length).toBeGreaterThanOrEqual(13);
  let appealId = "";
  for (const call of list) {
    if (call.path.includes("<appeal_id>")) {
      const a = await h.req("POST", `/api/v1/colonies/${c.colony.id}/appeal`, { token: c.member.token, body: { body: "I will read the rules" } });
      expect(a.status).toBe(201);
      appealId = a.body.appeal_id;
    }
    const fill = (s: string) =>
      s.replace("<user_id>", c.member.id).replace("<appeal_id>", appealId).replace("<report_id>", rep.body.id).replace("<post_id>", held.body.id);
    const path = `/api/v1/colonies/${c.colony.id}${fill(call.path)}`;
    const body = call.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(call.body)));
    h.clock.advance(1000);
    const r = await h.req(call.method, path, { token: c.founder.token, body });
    expect({ call: `${call.method} ${call.path}`, status: r.status < 300 ? "ok" : r.status, body: r.status < 300 ? null : r.body }).toEqual({ call: `${call.method} ${call.path}`, status: "ok", body: null });
  }
  // The calls did what the comments say.
  const invites = await h.req("GET", "/api/v1/colonies/mod-invites/received", { token: alice.token });
  expect(invites.body.invites.length).toBe(1);
  const bans = await h.req("GET", `/api/v1/colonies/${c.colony.id}/bans`, { token: c.founder.token });
  expect(bans.body.map((b: any) => b.user_id).sort()).toEqual([c.member.id, c.stranger.id].sort());
});
