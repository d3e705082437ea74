// Test fixtures of the role matrix (role-matrix.test.ts): one cast of users, a fresh colony of
// either visibility around them for every case, the setups operations need (a held post, a rule,
// an appeal, an invitation, a transfer, a modmail thread …), and a journal of every write to the
// database with the files of the colony's image folder, to show that a refused request changed
// nothing.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Harness, TestUser } from "../../../test/harness";
import { ban, makeColony, setRole } from "../colonies/fixtures";
import type { ColonyRow } from "../colonies/service";
import type { ColonyRole, ColonySettings, CommunityType } from "../colonies/tables";
import { createPost } from "../posts/fixtures";
import { addMember, setPermissions } from "./governance-fixtures";
import { MEDIA_FOLDER } from "./media";

/**
 * The cast. In every colony: `founder` (founder_moderator), `mod` and `mod2` (moderators with the
 * default keys), `member` and `target` (approved members), `pending` (awaiting approval) and
 * `banned` (banned, no longer a member). Outside it: `outsider` and `stranger` (plain accounts),
 * `cadmin` (made a colony admin by the cases that need one) and `siteAdmin` (the site admin flag).
 */
export interface People {
  founder: TestUser;
  mod: TestUser;
  mod2: TestUser;
  member: TestUser;
  target: TestUser;
  pending: TestUser;
  banned: TestUser;
  outsider: TestUser;
  stranger: TestUser;
  cadmin: TestUser;
  siteAdmin: TestUser;
}

export interface Env {
  h: Harness;
  p: People;
}

export interface World extends Env {
  colony: ColonyRow;
  /** Ids the case's setup made (a post, a rule, an appeal …). */
  refs: Record<string, string>;
}

let seq = 0;

/** The cast in `h`, each holding 150 karma (the header needs 100). */
export async function environment(h: Harness): Promise<Env> {
  const n = ++seq;
  const names = ["founder", "mod", "mod2", "member", "target", "pending", "banned", "outsider", "stranger", "cadmin", "siteAdmin"] as const;
  const p = {} as People;
  for (const name of names) p[name] = await h.user({ username: `${name.toLowerCase()}-${n}`, admin: name === "siteAdmin", karma: 150 });
  return { h, p };
}

/** A new colony of `type` founded by the founder, with the moderators, members, the pending member and the banned user in place. */
export function world(env: Env, type: CommunityType): World {
  const { h, p } = env;
  const colony = makeColony(h, p.founder, { type });
  for (const u of [p.mod, p.mod2, p.member, p.target]) addMember(h, colony.id, u.id);
  setRole(h, colony.id, p.mod.id, "moderator");
  setRole(h, colony.id, p.mod2.id, "moderator");
  addPending(h, colony.id, p.pending.id);
  ban(h, colony.id, p.banned.id);
  h.clock.advance(1000);
  return { ...env, colony, refs: {} };
}

function addPending(h: Harness, colonyId: string, userId: string): void {
  const now = h.clock.now();
  h.ctx.db.$client.query("insert into colony_members (colony_id, user_id, role, approved, joined_at, updated_at) values (?, ?, 'member', 0, ?, ?)").run(colonyId, userId, now, now);
  h.ctx.db.$client.query("update colonies set member_count = (select count(*) from colony_members where colony_id = ?) where id = ?").run(colonyId, colonyId);
}

// ---------------------------------------------------------------------------------------------
// Changing a world directly (the cases about roles and keys)

/** Adds `u` to the colony (when not a member) with `role`. */
export function giveRole(w: World, u: TestUser, role: ColonyRole): void {
  if (!w.h.ctx.db.$client.query("select 1 from colony_members where colony_id = ? and user_id = ?").get(w.colony.id, u.id)) addMember(w.h, w.colony.id, u.id);
  setRole(w.h, w.colony.id, u.id, role);
}

/** Takes users out of the colony altogether. */
export function dropMembers(w: World, ...us: TestUser[]): void {
  const db = w.h.ctx.db.$client;
  for (const u of us) db.query("delete from colony_members where colony_id = ? and user_id = ?").run(w.colony.id, u.id);
  db.query("update colonies set member_count = (select count(*) from colony_members where colony_id = ?) where id = ?").run(w.colony.id, w.colony.id);
}

/** Sets a member's permission keys (null: the role's defaults). */
export const setKeys = (w: World, u: TestUser, keys: string[] | null) => setPermissions(w.h, w.colony.id, u.id, keys);

export function setSettings(w: World, settings: ColonySettings): void {
  w.h.ctx.db.$client.query("update colonies set settings = ? where id = ?").run(JSON.stringify(settings), w.colony.id);
}

// ---------------------------------------------------------------------------------------------
// Setups through the API (each throws unless it worked)

/** Sends a setup request and returns the id field `key` of its answer. */
async function must(w: World, method: string, path: string, as: TestUser, body: unknown, key: string): Promise<string> {
  const r = await w.h.req(method, path, { token: as.token, body });
  if (r.status >= 300 || typeof r.body?.[key] !== "string") throw new Error(`setup ${method} ${path} failed: ${r.status} ${r.text}`);
  return r.body[key];
}

const base = (w: World) => `/api/v1/colonies/${w.colony.id}`;

/** A post by `target` held by requires_post_approval: refs.held (a pending_post queue row). */
export async function heldPost(w: World): Promise<void> {
  setSettings(w, { requires_post_approval: true });
  const r = await createPost(w.h, w.p.target, { colony_id: w.colony.id, title: "Waiting for a moderator" });
  setSettings(w, {});
  if (r.status !== 201 || !r.body.held) throw new Error(`held post failed: ${r.status} ${r.text}`);
  w.refs.held = r.body.id;
}

/** A published post by `target`: refs.post. */
export async function livePost(w: World): Promise<void> {
  const r = await createPost(w.h, w.p.target, { colony_id: w.colony.id, title: "Filed in the wrong place" });
  if (r.status !== 201) throw new Error(`post failed: ${r.status} ${r.text}`);
  w.refs.post = r.body.id;
}

export const RULE = { name: "No spam", triggers: { body_regex: "buy now" }, actions: { remove: true } };

/** Two automod rules made by the founder: refs.rule, refs.rule2. */
export async function rules(w: World): Promise<void> {
  w.refs.rule = await must(w, "POST", `${base(w)}/automod-rules`, w.p.founder, RULE, "rule_id");
  w.refs.rule2 = await must(w, "POST", `${base(w)}/automod-rules`, w.p.founder, { ...RULE, name: "No links" }, "rule_id");
}

/** The banned user's pending appeal: refs.appeal. */
export async function appeal(w: World): Promise<void> {
  w.refs.appeal = await must(w, "POST", `${base(w)}/appeal`, w.p.banned, { body: "I will behave" }, "appeal_id");
}

/** A modmail thread opened by `target`: refs.thread. */
export async function modmailThread(w: World): Promise<void> {
  w.refs.thread = await must(w, "POST", `${base(w)}/modmail`, w.p.target, { body: "Why was my post held?" }, "conversation_id");
}

/** The founder proposes handing the colony to `mod`: refs.transfer. */
export async function transferToMod(w: World): Promise<void> {
  w.refs.transfer = await must(w, "POST", `${base(w)}/ownership-transfers`, w.p.founder, { recipient_username: w.p.mod.username }, "transfer_id");
}

/** The founder invites `invitee` to moderate: refs.invite. */
export async function invite(w: World, invitee: TestUser): Promise<void> {
  w.refs.invite = await must(w, "POST", `${base(w)}/mod-invites`, w.p.founder, { invitee_username: invitee.username }, "invitation_id");
}

/** Sets image URLs as an upload would (the removal routes look at the URL; the files may be absent). */
export function imageUrls(w: World, kind: "icon" | "header"): void {
  const url = `http://localhost/${MEDIA_FOLDER}/${w.colony.id}/${kind === "icon" ? "icon-32.webp" : "header.webp"}?v=1`;
  const sql = kind === "icon" ? "update colonies set icon_url = ?1, icon_url_96 = ?1, icon_url_256 = ?1 where id = ?2" : "update colonies set header_url = ?1 where id = ?2";
  w.h.ctx.db.$client.query(sql).run(url, w.colony.id);
}

/** A multipart body holding `bytes` as its `file`. */
export function imageForm(bytes: Uint8Array): FormData {
  const f = new FormData();
  f.append("file", new File([bytes], "image.png", { type: "image/png" }));
  return f;
}

// ---------------------------------------------------------------------------------------------
// What a request wrote

/** What signing in writes whatever the request (users/service.ts touchLastActive), left out of the journal. */
const IGNORED: Record<string, readonly string[]> = { users: ["last_active_at"] };

const journaled = new WeakSet<object>();

/**
 * Makes the database keep a journal of its writes: temporary triggers on every table (the
 * full-text indexes aside: their base tables are in) note each insert, update and delete, an update
 * of `IGNORED` columns alone aside. A write that rolls back takes its entry with it, so an empty
 * journal since a mark means that no row changed. Reading it costs the same whatever the size of
 * the database, which holds every case's colony.
 */
export function journalWrites(h: Harness): void {
  const db = h.ctx.db.$client;
  if (journaled.has(db)) return;
  journaled.add(db);
  db.run("create temp table matrix_writes (seq integer primary key autoincrement, what text not null)");
  const all = db.query("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'").all() as { name: string; sql: string }[];
  const virtual = all.filter((t) => /^create virtual table/i.test(t.sql)).map((t) => t.name);
  const tables = all.map((t) => t.name).filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
  tables.forEach((name, i) => {
    const note = (what: string) => `begin insert into matrix_writes (what) values ('${what} ${name}'); end`;
    const cols = (db.query(`pragma table_info("${name}")`).all() as { name: string }[]).map((c) => c.name);
    const watched = IGNORED[name] ? ` of ${cols.filter((c) => !IGNORED[name].includes(c)).map((c) => `"${c}"`).join(", ")}` : "";
    db.run(`create temp trigger matrix_insert_${i} after insert on main."${name}" ${note("insert")}`);
    db.run(`create temp trigger matrix_update_${i} after update${watched} on main."${name}" ${note("update")}`);
    db.run(`create temp trigger matrix_delete_${i} after delete on main."${name}" ${note("delete")}`);
  });
}

/** The state to compare with after a request: the journal's position and the colony's image files. */
export interface Mark {
  seq: number;
  files: string;
}

function mediaFiles(h: Harness, colonyId: string): string {
  const dir = join(h.config.dataDir, MEDIA_FOLDER, colonyId);
  return existsSync(dir)
    ? readdirSync(dir)
        .sort()
        .map((f) => `${f}:${statSync(join(dir, f)).size}`)
        .join(" ")
    : "none";
}

export function mark(h: Harness, colonyId: string): Mark {
  const row = h.ctx.db.$client.query("select coalesce(max(seq), 0) as seq from temp.matrix_writes").get() as { seq: number };
  return { seq: row.seq, files: mediaFiles(h, colonyId) };
}

/** The writes since `m` (as "insert colony_bans" …) and the colony's image files now: no writes and the same files when nothing changed. */
export function changesSince(h: Harness, colonyId: string, m: Mark): { writes: string[]; files: string } {
  const rows = h.ctx.db.$client.query("select what from temp.matrix_writes where seq > ? order by seq").all(m.seq) as { what: string }[];
  return { writes: rows.map((r) => r.what), files: mediaFiles(h, colonyId) };
}
