// The permission matrix of colonies and their moderation (spec Part 2 §2.1, §3, §4.1, §4.2, §5,
// §7; docs/decisions.md §14, §19, §31-§39, §46): every route of the two sections, called in a
// public and in a private colony by each kind of caller — anonymous, a plain member, a moderator
// (with the default keys: can_manage_settings, can_remove, can_ban), the founder, a site admin who
// is not a member, a stranger, and (private) a member awaiting approval. A success is checked for
// its status only (each feature's tests check the bodies); a refusal for its status and code, and
// for having changed nothing: no table was written and the colony's image folder holds the same
// files. Every case runs in a colony of its own, all in one database around one cast of users.
//
// Then the rules around roles the matrix cannot show by caller alone: the founder's protection, the
// last-moderator guard, colony admins, moderators acting on moderators, permission keys, what a
// banned user still reaches, another colony's objects and a soft-deleted colony.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { expectError } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { makeColony, softDelete } from "../colonies/fixtures";
import type { CommunityType } from "../colonies/tables";
import {
  appeal,
  changesSince,
  dropMembers,
  environment,
  giveRole,
  heldPost,
  imageForm,
  imageUrls,
  invite,
  journalWrites,
  livePost,
  mark,
  modmailThread,
  RULE,
  rules,
  setKeys,
  setSettings,
  transferToMod,
  world,
  type Env,
  type World,
} from "./role-matrix-fixtures";

const dataDir = mkdtempSync(join(tmpdir(), "colony-role-matrix-"));
let icon: Buffer;
let header: Buffer;
/** The one database and cast of every case (each case founds a colony of its own). */
let env: Env;

beforeAll(async () => {
  icon = await sharp({ create: { width: 128, height: 128, channels: 3, background: "#336699" } }).png().toBuffer();
  header = await sharp({ create: { width: 800, height: 200, channels: 3, background: "#993366" } }).png().toBuffer();
  const h = setup({ dataDir, rateLimitMultiplier: 0 });
  journalWrites(h);
  env = await environment(h);
});

afterAll(() => {
  env?.h.ctx.db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Cells

type Refusal = readonly [status: number, code: string];
/** A success status, or a refusal's status and code. */
type Cell = number | Refusal;

const AUTH: Refusal = [401, "AUTH_INVALID_TOKEN"];
const FORBIDDEN: Refusal = [403, "FORBIDDEN"];
const NOT_FOUND: Refusal = [404, "NOT_FOUND"];
const CONFLICT: Refusal = [409, "CONFLICT"];
const INVALID: Refusal = [400, "INVALID_INPUT"];

const PUBLIC_CALLERS = ["anonymous", "member", "moderator", "founder", "site admin", "stranger"] as const;
const PRIVATE_CALLERS = ["anonymous", "pending member", "member", "moderator", "founder", "site admin", "stranger"] as const;
type PublicCaller = (typeof PUBLIC_CALLERS)[number];
type PrivateCaller = (typeof PRIVATE_CALLERS)[number];

interface Cells {
  public: Record<PublicCaller, Cell>;
  private: Record<PrivateCaller, Cell>;
}
type Overrides = { public?: Partial<Record<PublicCaller, Cell>>; private?: Partial<Record<PrivateCaller, Cell>> };

const over = (cells: Cells, o: Overrides): Cells => ({ public: { ...cells.public, ...o.public }, private: { ...cells.private, ...o.private } });

/**
 * Moderator routes (§4.1, §4.2 "moderator", §5): any moderating role of the colony, and site
 * admins everywhere. Others are 403, except where the colony must stay invisible: a private
 * colony is 404 to anyone but its approved members (§2.1, decisions §14).
 */
const modsOnly = (ok: number, o: Overrides = {}): Cells =>
  over(
    {
      public: { anonymous: AUTH, member: FORBIDDEN, moderator: ok, founder: ok, "site admin": ok, stranger: FORBIDDEN },
      private: { anonymous: AUTH, "pending member": NOT_FOUND, member: FORBIDDEN, moderator: ok, founder: ok, "site admin": ok, stranger: NOT_FOUND },
    },
    o,
  );

/** Mod invitations (§3, §4.2): the founder, colony admins, can_manage_mods (not a moderator default) and site admins. */
const managersOnly = (ok: number): Cells => modsOnly(ok, { public: { moderator: FORBIDDEN }, private: { moderator: FORBIDDEN } });

/** Readable by anyone in a public colony; in a private one, by its approved members and site admins (§2.1). */
const readers = (ok: number): Cells => ({
  public: { anonymous: ok, member: ok, moderator: ok, founder: ok, "site admin": ok, stranger: ok },
  private: { anonymous: NOT_FOUND, "pending member": NOT_FOUND, member: ok, moderator: ok, founder: ok, "site admin": ok, stranger: NOT_FOUND },
});

/** Any signed-in reader of the colony. */
const signedInReaders = (ok: number): Cells => over(readers(ok), { public: { anonymous: AUTH }, private: { anonymous: AUTH } });

/** Every signed-in caller gets `cell`. */
const signedIn = (cell: Cell, o: Overrides = {}): Cells =>
  over(
    {
      public: { anonymous: AUTH, member: cell, moderator: cell, founder: cell, "site admin": cell, stranger: cell },
      private: { anonymous: AUTH, "pending member": cell, member: cell, moderator: cell, founder: cell, "site admin": cell, stranger: cell },
    },
    o,
  );

/** Founder only (§4.2 ownership transfers; decisions §35: not site admins either). */
const founderOnly = (ok: number): Cells => modsOnly(ok, { public: { moderator: FORBIDDEN, "site admin": FORBIDDEN }, private: { moderator: FORBIDDEN, "site admin": FORBIDDEN } });

/** One party's action on a transfer (`moderator` is its recipient, the founder its initiator): strangers 404, the other party 403 (decisions §35). */
const transferParty = (as: "moderator" | "founder", ok: number): Cells =>
  signedIn(NOT_FOUND, {
    public: { moderator: as === "moderator" ? ok : FORBIDDEN, founder: as === "founder" ? ok : FORBIDDEN },
    private: { moderator: as === "moderator" ? ok : FORBIDDEN, founder: as === "founder" ? ok : FORBIDDEN },
  });

/** The invitee's action on an invitation (the invitee is `member`): anyone else 404 (decisions §38). */
const inviteeOnly = (ok: number): Cells => signedIn(NOT_FOUND, { public: { member: ok }, private: { member: ok } });

// ---------------------------------------------------------------------------------------------
// The operations

interface Call {
  url: string;
  body?: unknown;
  raw?: FormData;
}

interface Op {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** As the spec writes it, without /api/v1. */
  path: string;
  cells: Cells;
  setup?: (w: World) => Promise<void> | void;
  call: (w: World) => Call;
}

const col = (w: World, rest = "") => ({ url: `/api/v1/colonies/${w.colony.id}${rest}` });
const byName = (w: World, rest = "") => ({ url: `/api/v1/colonies/by-name/${w.colony.name}${rest}` });
const withBody = (r: { url: string }, body: unknown): Call => ({ ...r, body });

/** Joining: members are already in (409); by id a private colony is 404 to a stranger, by name it takes the request (decisions §19). */
const joinCells = (byNameToo: boolean): Cells =>
  signedIn(CONFLICT, { public: { "site admin": 204, stranger: 204 }, private: { "site admin": 204, stranger: byNameToo ? 204 : NOT_FOUND } });

/** Leaving: any member (moderators too while another remains); 404 for a non-member. */
const leaveCells = signedIn(204, { public: { "site admin": NOT_FOUND, stranger: NOT_FOUND }, private: { "site admin": NOT_FOUND, stranger: NOT_FOUND } });

/** `target` on the colony's wiki editor list. */
const wikiEditor = (w: World) =>
  void w.h.ctx.db.$client.query("insert into wiki_editors (colony_id, user_id, added_by, created_at) values (?, ?, ?, ?)").run(w.colony.id, w.p.target.id, w.p.founder.id, w.h.clock.now());

const OPS: Op[] = [
  // --- §4.1 Colonies ---------------------------------------------------------------------------
  { method: "GET", path: "/colonies/by-name/{name}", cells: readers(200), call: (w) => byName(w) },
  { method: "POST", path: "/colonies/{id}/join", cells: joinCells(false), call: (w) => col(w, "/join") },
  { method: "POST", path: "/colonies/by-name/{name}/join", cells: joinCells(true), call: (w) => byName(w, "/join") },
  { method: "POST", path: "/colonies/{id}/leave", cells: leaveCells, call: (w) => col(w, "/leave") },
  { method: "POST", path: "/colonies/by-name/{name}/leave", cells: leaveCells, call: (w) => byName(w, "/leave") },
  { method: "PATCH", path: "/colonies/{id}", cells: modsOnly(200), call: (w) => withBody(col(w), { description: "Changed by a moderator", strike_threshold: 5 }) },
  { method: "GET", path: "/colonies/{id}/members", cells: readers(200), call: (w) => col(w, "/members") },
  // The colony's iCalendar feed of events (Part 3 §4.13, docs/decisions.md §105): whoever reads the colony.
  { method: "GET", path: "/colonies/{id}/events.ics", cells: readers(200), call: (w) => col(w, "/events.ics") },
  { method: "POST", path: "/colonies/{id}/members/{user}/promote", cells: modsOnly(204), call: (w) => col(w, `/members/${w.p.target.id}/promote`) },
  { method: "POST", path: "/colonies/{id}/members/{user}/demote", cells: modsOnly(204), call: (w) => col(w, `/members/${w.p.mod2.id}/demote`) },
  { method: "POST", path: "/colonies/{id}/members/{user}/approve", cells: modsOnly(204), call: (w) => col(w, `/members/${w.p.pending.id}/approve`) },
  { method: "POST", path: "/colonies/{id}/members/{user}/revoke-approval", cells: modsOnly(204), call: (w) => col(w, `/members/${w.p.target.id}/revoke-approval`) },
  { method: "DELETE", path: "/colonies/{id}/members/{user}", cells: modsOnly(204), call: (w) => col(w, `/members/${w.p.target.id}`) },
  { method: "GET", path: "/colonies/{id}/bans", cells: modsOnly(200), call: (w) => col(w, "/bans") },
  { method: "POST", path: "/colonies/{id}/bans/{user}", cells: modsOnly(201), call: (w) => withBody(col(w, `/bans/${w.p.target.id}`), { duration_days: 7, reason: "Spam" }) },
  { method: "DELETE", path: "/colonies/{id}/bans/{user}", cells: modsOnly(204), call: (w) => col(w, `/bans/${w.p.banned.id}`) },
  // The colony's wiki editors (Part 3 §4.14): can_manage_settings, a moderator default (decisions §87).
  { method: "GET", path: "/colonies/{id}/wiki-editors", cells: modsOnly(200), call: (w) => col(w, "/wiki-editors") },
  { method: "POST", path: "/colonies/{id}/wiki-editors", cells: modsOnly(201), call: (w) => withBody(col(w, "/wiki-editors"), { username: w.p.target.username }) },
  { method: "DELETE", path: "/colonies/{id}/wiki-editors/{user}", cells: modsOnly(204), setup: wikiEditor, call: (w) => col(w, `/wiki-editors/${w.p.target.id}`) },
  { method: "POST", path: "/colonies/{id}/header", cells: modsOnly(201), call: (w) => ({ ...col(w, "/header"), raw: imageForm(header) }) },
  { method: "DELETE", path: "/colonies/{id}/header", cells: modsOnly(204), setup: (w) => imageUrls(w, "header"), call: (w) => col(w, "/header") },
  { method: "POST", path: "/colonies/{id}/icon", cells: modsOnly(201), call: (w) => ({ ...col(w, "/icon"), raw: imageForm(icon) }) },
  { method: "DELETE", path: "/colonies/{id}/icon", cells: modsOnly(204), setup: (w) => imageUrls(w, "icon"), call: (w) => col(w, "/icon") },
  {
    method: "GET",
    path: "/colony-media/{id}/{file}",
    cells: readers(200),
    setup: async (w) => {
      const r = await w.h.req("POST", `/api/v1/colonies/${w.colony.id}/icon`, { token: w.p.founder.token, raw: imageForm(icon) });
      if (r.status !== 201) throw new Error(`icon upload failed: ${r.status} ${r.text}`);
    },
    call: (w) => ({ url: `/colony-media/${w.colony.id}/icon-96.webp` }),
  },

  // --- §4.2 Colony moderation and governance ---------------------------------------------------
  { method: "GET", path: "/colonies/{id}/queue", cells: modsOnly(200), setup: heldPost, call: (w) => col(w, "/queue") },
  {
    method: "POST",
    path: "/colonies/{id}/queue/action",
    cells: modsOnly(200),
    setup: heldPost,
    call: (w) => withBody(col(w, "/queue/action"), { source: "pending_post", source_id: w.refs.held, action: "approve" }),
  },
  {
    method: "POST",
    path: "/colonies/{id}/queue/bulk-action",
    cells: modsOnly(200),
    setup: heldPost,
    call: (w) => withBody(col(w, "/queue/bulk-action"), { items: [{ source: "pending_post", source_id: w.refs.held, action: "reject" }] }),
  },
  {
    method: "POST",
    path: "/colonies/{id}/posts/{post}/move-out",
    // A private colony's post would be disclosed by the move: 400 (§4.2).
    cells: modsOnly(200, { private: { moderator: INVALID, founder: INVALID, "site admin": INVALID } }),
    setup: livePost,
    call: (w) => col(w, `/posts/${w.refs.post}/move-out`),
  },
  { method: "POST", path: "/colonies/{id}/members/{user}/strikes", cells: modsOnly(201), call: (w) => withBody(col(w, `/members/${w.p.target.id}/strikes`), { reason: "Off topic" }) },
  // Somebody else's strikes: moderators only (a member reads their own: below).
  { method: "GET", path: "/colonies/{id}/members/{user}/strikes", cells: modsOnly(200), call: (w) => col(w, `/members/${w.p.target.id}/strikes`) },
  { method: "GET", path: "/colonies/{id}/appeal", cells: signedInReaders(200), call: (w) => col(w, "/appeal") },
  // Nobody of the matrix is banned: 404 (decisions §34); the banned user's appeal is below.
  { method: "POST", path: "/colonies/{id}/appeal", cells: signedIn(NOT_FOUND), call: (w) => withBody(col(w, "/appeal"), { body: "Let me back in" }) },
  { method: "GET", path: "/colonies/{id}/appeals", cells: modsOnly(200), setup: appeal, call: (w) => col(w, "/appeals") },
  {
    method: "POST",
    path: "/colonies/{id}/appeals/{appeal}/resolve",
    cells: modsOnly(200),
    setup: appeal,
    call: (w) => withBody(col(w, `/appeals/${w.refs.appeal}/resolve`), { accept: true, note: "Welcome back" }),
  },
  { method: "GET", path: "/colonies/{id}/automod-rules", cells: modsOnly(200), setup: rules, call: (w) => col(w, "/automod-rules") },
  { method: "POST", path: "/colonies/{id}/automod-rules", cells: modsOnly(201), call: (w) => withBody(col(w, "/automod-rules"), RULE) },
  { method: "PATCH", path: "/colonies/{id}/automod-rules/{rule}", cells: modsOnly(200), setup: rules, call: (w) => withBody(col(w, `/automod-rules/${w.refs.rule}`), { enabled: false }) },
  { method: "DELETE", path: "/colonies/{id}/automod-rules/{rule}", cells: modsOnly(204), setup: rules, call: (w) => col(w, `/automod-rules/${w.refs.rule}`) },
  {
    method: "PUT",
    path: "/colonies/{id}/automod-rules/order",
    cells: modsOnly(200),
    setup: rules,
    call: (w) => withBody(col(w, "/automod-rules/order"), { rule_ids: [w.refs.rule2, w.refs.rule] }),
  },
  { method: "POST", path: "/colonies/{id}/automod-rules/dry-run", cells: modsOnly(200), setup: livePost, call: (w) => withBody(col(w, "/automod-rules/dry-run"), RULE) },
  // Modmail is anyone's recourse (§4.2, §5); in a private colony, anyone with a membership, a ban or a thread there (decisions §39).
  { method: "POST", path: "/colonies/{id}/modmail", cells: signedIn(201, { private: { stranger: NOT_FOUND } }), call: (w) => withBody(col(w, "/modmail"), { body: "A word with the moderators" }) },
  { method: "GET", path: "/colonies/{id}/modmail", cells: modsOnly(200), setup: modmailThread, call: (w) => col(w, "/modmail") },
  { method: "POST", path: "/colonies/{id}/modmail/{conversation}/join", cells: modsOnly(200), setup: modmailThread, call: (w) => col(w, `/modmail/${w.refs.thread}/join`) },
  { method: "GET", path: "/colonies/{id}/mod-activity", cells: modsOnly(200), call: (w) => col(w, "/mod-activity") },
  {
    method: "POST",
    path: "/colonies/{id}/ownership-transfers",
    cells: founderOnly(201),
    call: (w) => withBody(col(w, "/ownership-transfers"), { recipient_username: w.p.mod.username }),
  },
  // Shown to its two parties only; anybody else reading the colony gets {pending: null} (decisions §35).
  { method: "GET", path: "/colonies/{id}/ownership-transfers", cells: signedInReaders(200), setup: transferToMod, call: (w) => col(w, "/ownership-transfers") },
  {
    method: "POST",
    path: "/colonies/ownership-transfers/{transfer}/accept",
    cells: transferParty("moderator", 200),
    setup: transferToMod,
    call: (w) => ({ url: `/api/v1/colonies/ownership-transfers/${w.refs.transfer}/accept` }),
  },
  {
    method: "POST",
    path: "/colonies/ownership-transfers/{transfer}/decline",
    cells: transferParty("moderator", 200),
    setup: transferToMod,
    call: (w) => ({ url: `/api/v1/colonies/ownership-transfers/${w.refs.transfer}/decline` }),
  },
  {
    method: "POST",
    path: "/colonies/ownership-transfers/{transfer}/cancel",
    cells: transferParty("founder", 200),
    setup: transferToMod,
    call: (w) => ({ url: `/api/v1/colonies/ownership-transfers/${w.refs.transfer}/cancel` }),
  },
  { method: "GET", path: "/colonies/mod-invites/received", cells: signedIn(200), setup: (w) => invite(w, w.p.member), call: () => ({ url: "/api/v1/colonies/mod-invites/received" }) },
  {
    method: "POST",
    path: "/colonies/mod-invites/{invitation}/accept",
    cells: inviteeOnly(200),
    setup: (w) => invite(w, w.p.member),
    call: (w) => ({ url: `/api/v1/colonies/mod-invites/${w.refs.invite}/accept` }),
  },
  {
    method: "POST",
    path: "/colonies/mod-invites/{invitation}/decline",
    cells: inviteeOnly(200),
    setup: (w) => invite(w, w.p.member),
    call: (w) => ({ url: `/api/v1/colonies/mod-invites/${w.refs.invite}/decline` }),
  },
  { method: "POST", path: "/colonies/{id}/mod-invites", cells: managersOnly(201), call: (w) => withBody(col(w, "/mod-invites"), { invitee_username: w.p.outsider.username }) },
  { method: "GET", path: "/colonies/{id}/mod-invites", cells: managersOnly(200), setup: (w) => invite(w, w.p.outsider), call: (w) => col(w, "/mod-invites") },
  {
    method: "POST",
    path: "/colonies/{id}/mod-invites/{invitation}/revoke",
    cells: managersOnly(200),
    setup: (w) => invite(w, w.p.outsider),
    call: (w) => col(w, `/mod-invites/${w.refs.invite}/revoke`),
  },
];

const CALLER_USER: Record<PrivateCaller, (w: World) => TestUser | null> = {
  anonymous: () => null,
  "pending member": (w) => w.p.pending,
  member: (w) => w.p.member,
  moderator: (w) => w.p.mod,
  founder: (w) => w.p.founder,
  "site admin": (w) => w.p.siteAdmin,
  stranger: (w) => w.p.stranger,
};

const expected = (cell: Cell) => (typeof cell === "number" ? `${cell}` : `${cell[0]} ${cell[1]}, unchanged`);
const opName = (op: Pick<Op, "method" | "path">) => `${op.method} ${op.path}`;

/** Sends the request as `as` and checks the cell: a success by status, a refusal by status, code, no write and the same image files. */
async function check(w: World, as: TestUser | null, method: Op["method"], req: Call, cell: Cell): Promise<void> {
  const before = typeof cell === "number" ? null : mark(w.h, w.colony.id);
  const res = await w.h.req(method, req.url, { token: as?.token ?? null, body: req.body, raw: req.raw });
  if (typeof cell === "number") {
    expect({ status: res.status, body: res.status === cell ? null : res.body }).toEqual({ status: cell, body: null });
    return;
  }
  expectError(res, cell[0], cell[1]);
  expect(changesSince(w.h, w.colony.id, before!)).toEqual({ writes: [], files: before!.files });
}

async function runCell(op: Op, type: CommunityType, caller: PrivateCaller, cell: Cell): Promise<void> {
  const w = world(env, type);
  await op.setup?.(w);
  await check(w, CALLER_USER[caller](w), op.method, op.call(w), cell);
}

/** The routes of the two sections that take no role: anyone may call them, signed in or not. */
const OPEN_ROUTES = ["GET /colonies/check-name", "GET /colonies", "POST /colonies"];

const routeKey = (method: string, path: string) => `${method} ${path.replace(/^\/api\/v1/, "").replace(/:[a-z_]+|\{[a-z_]+\}/g, "{}")}`;

test("every route of the colonies and their moderation is in the matrix, or open to anyone", () => {
  const served = (env.h.app.routes as { method: string; path: string }[])
    .filter((r) => r.path.startsWith("/api/v1/colonies") || r.path.startsWith("/colony-media/"))
    .map((r) => routeKey(r.method, r.path));
  const listed = [...OPS.map((op) => routeKey(op.method, op.path)), ...OPEN_ROUTES.map((r) => routeKey(...(r.split(" ") as [string, string])))];
  expect(served.filter((r) => !listed.includes(r))).toEqual([]);
  expect(listed.filter((r) => !served.includes(r))).toEqual([]);
  expect(new Set(listed).size).toBe(listed.length);
});

test("the journal of writes notes every table's inserts, updates and deletes, users' last_active_at aside", () => {
  const w = world(env, "public");
  const db = w.h.ctx.db.$client;
  const m = mark(w.h, w.colony.id);
  db.query("update users set last_active_at = ? where id = ?").run(w.h.clock.now(), w.p.member.id);
  expect(changesSince(w.h, w.colony.id, m).writes).toEqual([]);
  db.query("update colonies set description = 'changed' where id = ?").run(w.colony.id);
  db.query("delete from colony_bans where colony_id = ?").run(w.colony.id);
  db.query("update users set karma = karma + 1 where id = ?").run(w.p.member.id);
  expect(changesSince(w.h, w.colony.id, m).writes).toEqual(["update colonies", "delete colony_bans", "update users"]);
  // A write that rolls back leaves no entry.
  const m2 = mark(w.h, w.colony.id);
  expect(() =>
    w.h.ctx.db.transaction(() => {
      db.query("delete from colony_members where colony_id = ?").run(w.colony.id);
      throw new Error("rolled back");
    }),
  ).toThrow();
  expect(changesSince(w.h, w.colony.id, m2).writes).toEqual([]);
});

for (const type of ["public", "private"] as const) {
  describe(`${type} colony`, () => {
    for (const op of OPS) {
      const callers = type === "public" ? PUBLIC_CALLERS : PRIVATE_CALLERS;
      for (const caller of callers) {
        const cell = (op.cells[type] as Record<PrivateCaller, Cell>)[caller];
        test(`${opName(op)}: ${caller} → ${expected(cell)}`, () => runCell(op, type, caller, cell));
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The rules around roles

interface Case {
  name: string;
  type?: CommunityType;
  prepare?: (w: World) => Promise<void> | void;
  as: (w: World) => TestUser;
  method: Op["method"];
  call: (w: World) => Call;
  cell: Cell;
}

type P = World["p"];
const memberPath = (w: World, u: (p: P) => TestUser, rest = "") => col(w, `/members/${u(w.p).id}${rest}`);
const demote = (u: (p: P) => TestUser) => ({ method: "POST" as const, call: (w: World) => memberPath(w, u, "/demote") });
const promote = (u: (p: P) => TestUser) => ({ method: "POST" as const, call: (w: World) => memberPath(w, u, "/promote") });
const remove = (u: (p: P) => TestUser) => ({ method: "DELETE" as const, call: (w: World) => memberPath(w, u) });
const banOf = (u: (p: P) => TestUser) => ({ method: "POST" as const, call: (w: World) => withBody(col(w, `/bans/${u(w.p).id}`), { reason: "Out" }) });
const strike = (u: (p: P) => TestUser) => ({ method: "POST" as const, call: (w: World) => withBody(memberPath(w, u, "/strikes"), { reason: "Rude" }) });
const leave = { method: "POST" as const, call: (w: World) => col(w, "/leave") };
const offer = (u: (p: P) => TestUser, role_offered: "moderator" | "admin") => ({
  method: "POST" as const,
  call: (w: World) => withBody(col(w, "/mod-invites"), { invitee_username: u(w.p).username, role_offered }),
});

const founder = (p: P) => p.founder;
const mod = (p: P) => p.mod;
const mod2 = (p: P) => p.mod2;
const target = (p: P) => p.target;
const cadmin = (p: P) => p.cadmin;
const outsider = (p: P) => p.outsider;
const as = (u: (p: P) => TestUser) => (w: World) => u(w.p);
const siteAdmin = as((p) => p.siteAdmin);
const withColonyAdmin = (w: World) => giveRole(w, w.p.cadmin, "admin");
/**
 * The founder of another colony (the stranger) names this colony's object, made by `make`, through
 * their own colony's routes: 404 (or `cell`), and nothing changes in either colony.
 */
function elsewhere(what: string, make: ((w: World) => Promise<void> | void) | undefined, method: Op["method"], path: (w: World) => [string, unknown?], cell: Cell = NOT_FOUND): Case {
  return {
    name: `the founder of another colony ${what} through their own`,
    prepare: async (w) => {
      await make?.(w);
      w.refs.other = makeColony(w.h, w.p.stranger).id;
    },
    as: as((p) => p.stranger),
    method,
    call: (w) => {
      const [rest, body] = path(w);
      return { url: `/api/v1/colonies/${w.refs.other}${rest}`, body };
    },
    cell,
  };
}

const deleteAfter = (make: (w: World) => Promise<void>) => async (w: World) => {
  await make(w);
  softDelete(w.h, w.colony.id);
};

/** A call on the colony once soft-deleted: 404 NOT_FOUND, unchanged. */
const deleted = (name: string, who: (w: World) => TestUser, method: Op["method"], call: (w: World) => Call): Case => ({
  name,
  prepare: (w) => {
    softDelete(w.h, w.colony.id);
  },
  as: who,
  method,
  call,
  cell: NOT_FOUND,
});

/** A case of the user banned from a private colony. */
const bannedUser = (c: Omit<Case, "type" | "as">): Case => ({ ...c, type: "private", as: as((p) => p.banned) });

const CASES: Record<string, Case[]> = {
  // Decisions §31, §33: the founder is demoted, removed, banned or struck by a site admin only.
  "the founder's protection": [
    { name: "a moderator demotes the founder", as: as(mod), ...demote(founder), cell: FORBIDDEN },
    { name: "a moderator removes the founder", as: as(mod), ...remove(founder), cell: FORBIDDEN },
    { name: "a moderator bans the founder", as: as(mod), ...banOf(founder), cell: FORBIDDEN },
    { name: "a moderator strikes the founder", as: as(mod), ...strike(founder), cell: FORBIDDEN },
    { name: "a moderator revokes the founder's approval", as: as(mod), method: "POST", call: (w) => memberPath(w, founder, "/revoke-approval"), cell: CONFLICT },
    { name: "a colony admin demotes the founder", prepare: withColonyAdmin, as: as(cadmin), ...demote(founder), cell: FORBIDDEN },
    { name: "a colony admin removes the founder", prepare: withColonyAdmin, as: as(cadmin), ...remove(founder), cell: FORBIDDEN },
    { name: "a colony admin bans the founder", prepare: withColonyAdmin, as: as(cadmin), ...banOf(founder), cell: FORBIDDEN },
    { name: "a colony admin strikes the founder", prepare: withColonyAdmin, as: as(cadmin), ...strike(founder), cell: FORBIDDEN },
    { name: "the founder demotes themself", as: as(founder), ...demote(founder), cell: FORBIDDEN },
    { name: "the founder removes themself", as: as(founder), ...remove(founder), cell: FORBIDDEN },
    { name: "a private colony's moderator demotes its founder", type: "private", as: as(mod), ...demote(founder), cell: FORBIDDEN },
    { name: "a site admin demotes the founder", as: siteAdmin, ...demote(founder), cell: 204 },
    { name: "a site admin removes the founder", as: siteAdmin, ...remove(founder), cell: 204 },
    { name: "a site admin bans the founder", as: siteAdmin, ...banOf(founder), cell: 201 },
    { name: "a site admin strikes the founder", as: siteAdmin, ...strike(founder), cell: 201 },
    { name: "a site admin demotes a private colony's founder", type: "private", as: siteAdmin, ...demote(founder), cell: 204 },
  ],
  // Spec §3 (leave, demote: "last-mod guard counts mods and colony admins"); decisions §31, §33.
  "the last-moderator guard": [
    ...(
      [
        ["the founder, the last moderator, leaves", as(founder), leave],
        ["the founder, the last moderator, leaves by name", as(founder), { method: "POST" as const, call: (w: World) => byName(w, "/leave") }],
        ["a site admin demotes the founder, the last moderator", siteAdmin, demote(founder)],
        ["a site admin removes the founder, the last moderator", siteAdmin, remove(founder)],
        ["a site admin bans the founder, the last moderator", siteAdmin, banOf(founder)],
      ] as const
    ).map(([name, who, req]): Case => ({ name, prepare: (w) => dropMembers(w, w.p.mod, w.p.mod2), as: who, ...req, cell: CONFLICT })),
    {
      name: "a site admin's strike that would ban the founder, the last moderator (no strike is written)",
      prepare: (w) => {
        dropMembers(w, w.p.mod, w.p.mod2);
        setSettings(w, { strike_threshold: 1, strike_action: "ban" });
      },
      as: siteAdmin,
      ...strike(founder),
      cell: CONFLICT,
    },
    {
      name: "a moderator, the last moderator once the founder is gone, leaves",
      prepare: (w) => dropMembers(w, w.p.founder, w.p.mod2),
      as: as(mod),
      ...leave,
      cell: CONFLICT,
    },
    {
      name: "a site admin demotes the last moderator, a plain moderator",
      prepare: (w) => dropMembers(w, w.p.founder, w.p.mod2),
      as: siteAdmin,
      ...demote(mod),
      cell: CONFLICT,
    },
    {
      name: "a site admin removes a colony admin, the last moderating role",
      prepare: (w) => {
        dropMembers(w, w.p.founder, w.p.mod, w.p.mod2);
        withColonyAdmin(w);
      },
      as: siteAdmin,
      ...remove(cadmin),
      cell: CONFLICT,
    },
    {
      name: "with a colony admin beside the founder, a site admin demotes the founder",
      prepare: (w) => {
        dropMembers(w, w.p.mod, w.p.mod2);
        withColonyAdmin(w);
      },
      as: siteAdmin,
      ...demote(founder),
      cell: 204,
    },
    { name: "with another moderator left, the founder leaves", as: as(founder), ...leave, cell: 204 },
  ],
  // Spec §3 ("admin targets refused"; "colony admin removable only by founder or site admin"); decisions §31, §38.
  "colony admins": [
    { name: "a moderator removes a colony admin", prepare: withColonyAdmin, as: as(mod), ...remove(cadmin), cell: FORBIDDEN },
    { name: "a moderator demotes a colony admin", prepare: withColonyAdmin, as: as(mod), ...demote(cadmin), cell: FORBIDDEN },
    { name: "the founder demotes a colony admin", prepare: withColonyAdmin, as: as(founder), ...demote(cadmin), cell: FORBIDDEN },
    { name: "a site admin promotes a colony admin", prepare: withColonyAdmin, as: siteAdmin, ...promote(cadmin), cell: FORBIDDEN },
    { name: "a site admin demotes a colony admin", prepare: withColonyAdmin, as: siteAdmin, ...demote(cadmin), cell: FORBIDDEN },
    { name: "a moderator bans a colony admin", prepare: withColonyAdmin, as: as(mod), ...banOf(cadmin), cell: FORBIDDEN },
    { name: "a colony admin offers the admin role", prepare: withColonyAdmin, as: as(cadmin), ...offer(outsider, "admin"), cell: FORBIDDEN },
    { name: "the founder removes a colony admin", prepare: withColonyAdmin, as: as(founder), ...remove(cadmin), cell: 204 },
    { name: "a site admin removes a colony admin", prepare: withColonyAdmin, as: siteAdmin, ...remove(cadmin), cell: 204 },
    { name: "a colony admin removes a moderator", prepare: withColonyAdmin, as: as(cadmin), ...remove(mod), cell: 204 },
    { name: "a colony admin promotes a member", prepare: withColonyAdmin, as: as(cadmin), ...promote(target), cell: 204 },
    { name: "a colony admin invites a moderator", prepare: withColonyAdmin, as: as(cadmin), ...offer(outsider, "moderator"), cell: 201 },
    { name: "the founder offers the admin role", as: as(founder), ...offer(outsider, "admin"), cell: 201 },
    { name: "a site admin offers the admin role", as: siteAdmin, ...offer(outsider, "admin"), cell: 201 },
  ],
  // Decisions §32, §33: other moderators are banned and struck by the founder or a site admin only.
  "moderators acting on moderators": [
    { name: "a moderator bans another moderator", as: as(mod), ...banOf(mod2), cell: FORBIDDEN },
    { name: "a moderator strikes another moderator", as: as(mod), ...strike(mod2), cell: FORBIDDEN },
    { name: "a moderator bans themself", as: as(mod), ...banOf(mod), cell: INVALID },
    { name: "a moderator strikes themself", as: as(mod), ...strike(mod), cell: INVALID },
    { name: "a moderator removes another moderator", as: as(mod), ...remove(mod2), cell: 204 },
    { name: "a moderator demotes another moderator", as: as(mod), ...demote(mod2), cell: 204 },
    { name: "the founder bans a moderator", as: as(founder), ...banOf(mod2), cell: 201 },
    { name: "the founder strikes a moderator", as: as(founder), ...strike(mod2), cell: 201 },
  ],
  // Spec §2.2, §4.1, §4.2; decisions §31, §33, §34, §41, §46: the keys a moderator holds, not the role alone.
  "permission keys": [
    ...(
      [
        ["bans", banOf(target)],
        ["unbans", { method: "DELETE" as const, call: (w: World) => col(w, `/bans/${w.p.banned.id}`) }],
        ["strikes", strike(target)],
      ] as const
    ).map(([what, req]): Case => ({ name: `a moderator without can_ban ${what}`, prepare: (w) => setKeys(w, w.p.mod, ["can_manage_settings", "can_remove"]), as: as(mod), ...req, cell: FORBIDDEN })),
    {
      name: "a moderator without can_ban resolves an appeal",
      prepare: async (w) => {
        setKeys(w, w.p.mod, ["can_manage_settings", "can_remove"]);
        await appeal(w);
      },
      as: as(mod),
      method: "POST",
      call: (w) => withBody(col(w, `/appeals/${w.refs.appeal}/resolve`), { accept: true }),
      cell: FORBIDDEN,
    },
    {
      name: "a moderator without can_remove approves a held post",
      prepare: async (w) => {
        setKeys(w, w.p.mod, ["can_manage_settings", "can_ban"]);
        await heldPost(w);
      },
      as: as(mod),
      method: "POST",
      call: (w) => withBody(col(w, "/queue/action"), { source: "pending_post", source_id: w.refs.held, action: "approve" }),
      cell: FORBIDDEN,
    },
    {
      name: "a moderator without can_ban bans a held post's author",
      prepare: async (w) => {
        setKeys(w, w.p.mod, ["can_manage_settings", "can_remove"]);
        await heldPost(w);
      },
      as: as(mod),
      method: "POST",
      call: (w) => withBody(col(w, "/queue/action"), { source: "pending_post", source_id: w.refs.held, action: "ban_author", duration_days: 7 }),
      cell: FORBIDDEN,
    },
    {
      name: "a moderator without can_remove moves a post out",
      prepare: async (w) => {
        setKeys(w, w.p.mod, ["can_manage_settings", "can_ban"]);
        await livePost(w);
      },
      as: as(mod),
      method: "POST",
      call: (w) => col(w, `/posts/${w.refs.post}/move-out`),
      cell: FORBIDDEN,
    },
    ...(
      [
        ["changes the colony's settings", { method: "PATCH" as const, call: (w: World) => withBody(col(w), { community_type: "private", strike_action: "ban" }) }],
        ["uploads an icon", { method: "POST" as const, call: (w: World) => ({ ...col(w, "/icon"), raw: imageForm(icon) }) }],
        ["uploads a header", { method: "POST" as const, call: (w: World) => ({ ...col(w, "/header"), raw: imageForm(header) }) }],
      ] as const
    ).map(([what, req]): Case => ({
      name: `a moderator without can_manage_settings ${what}`,
      prepare: (w) => setKeys(w, w.p.mod, ["can_remove", "can_ban"]),
      as: as(mod),
      ...req,
      cell: FORBIDDEN,
    })),
    {
      name: "a moderator without can_manage_settings removes the icon",
      prepare: (w) => {
        setKeys(w, w.p.mod, ["can_remove", "can_ban"]);
        imageUrls(w, "icon");
      },
      as: as(mod),
      method: "DELETE",
      call: (w) => col(w, "/icon"),
      cell: FORBIDDEN,
    },
    {
      name: "a moderator holding only can_manage_settings changes the colony's settings",
      prepare: (w) => setKeys(w, w.p.mod, ["can_manage_settings"]),
      as: as(mod),
      method: "PATCH",
      call: (w) => withBody(col(w), { description: "Tidied" }),
      cell: 200,
    },
    { name: "a moderator holding no key reads the queue", prepare: (w) => setKeys(w, w.p.mod, []), as: as(mod), method: "GET", call: (w) => col(w, "/queue"), cell: 200 },
    { name: "a moderator holding no key promotes a member", prepare: (w) => setKeys(w, w.p.mod, []), as: as(mod), ...promote(target), cell: 204 },
    {
      name: "a moderator holding can_manage_mods invites a moderator",
      prepare: (w) => setKeys(w, w.p.mod, ["can_manage_mods"]),
      as: as(mod),
      ...offer(outsider, "moderator"),
      cell: 201,
    },
    {
      name: "a moderator holding can_manage_mods offers the admin role",
      prepare: (w) => setKeys(w, w.p.mod, ["can_manage_mods"]),
      as: as(mod),
      ...offer(outsider, "admin"),
      cell: FORBIDDEN,
    },
  ],
  // Spec §4.2, §5 ("modmail works for banned users"); decisions §34, §39: what a user banned from a private colony still reaches.
  "a user banned from a private colony": [
    bannedUser({ name: "reads their ban", method: "GET", call: (w) => col(w, "/appeal"), cell: 200 }),
    bannedUser({ name: "appeals", method: "POST", call: (w) => withBody(col(w, "/appeal"), { body: "Sorry" }), cell: 201 }),
    bannedUser({ name: "appeals again while the first is pending", prepare: appeal, method: "POST", call: (w) => withBody(col(w, "/appeal"), { body: "Again" }), cell: CONFLICT }),
    bannedUser({ name: "reads their own strikes", method: "GET", call: (w) => col(w, `/members/${w.p.banned.id}/strikes`), cell: 200 }),
    bannedUser({ name: "writes to the moderators", method: "POST", call: (w) => withBody(col(w, "/modmail"), { body: "Please reconsider" }), cell: 201 }),
    bannedUser({ name: "reads somebody else's strikes", method: "GET", call: (w) => col(w, `/members/${w.p.target.id}/strikes`), cell: FORBIDDEN }),
    bannedUser({ name: "lists the members", method: "GET", call: (w) => col(w, "/members"), cell: NOT_FOUND }),
    bannedUser({ name: "looks the colony up by name", method: "GET", call: (w) => byName(w), cell: NOT_FOUND }),
    bannedUser({ name: "joins by id", method: "POST", call: (w) => col(w, "/join"), cell: NOT_FOUND }),
    bannedUser({ name: "joins by name", method: "POST", call: (w) => byName(w, "/join"), cell: FORBIDDEN }),
  ],
  // ARCHITECTURE rule 5 ("not yours = 404"): the founder of another colony names this colony's
  // objects through the colony they moderate.
  "another colony's objects": [
    elsewhere("resolves this colony's appeal", appeal, "POST", (w) => [`/appeals/${w.refs.appeal}/resolve`, { accept: true }]),
    elsewhere("acts on this colony's queue row", heldPost, "POST", (w) => ["/queue/action", { source: "pending_post", source_id: w.refs.held, action: "approve" }]),
    elsewhere("moves this colony's post out", livePost, "POST", (w) => [`/posts/${w.refs.post}/move-out`]),
    elsewhere("edits this colony's automod rule", rules, "PATCH", (w) => [`/automod-rules/${w.refs.rule}`, { enabled: false }]),
    elsewhere("deletes this colony's automod rule", rules, "DELETE", (w) => [`/automod-rules/${w.refs.rule}`]),
    elsewhere("reorders this colony's automod rules", rules, "PUT", (w) => ["/automod-rules/order", { rule_ids: [w.refs.rule2, w.refs.rule] }], CONFLICT),
    elsewhere("joins this colony's modmail thread", modmailThread, "POST", (w) => [`/modmail/${w.refs.thread}/join`]),
    elsewhere("revokes this colony's invitation", (w) => invite(w, w.p.outsider), "POST", (w) => [`/mod-invites/${w.refs.invite}/revoke`]),
    elsewhere("lifts this colony's ban", undefined, "DELETE", (w) => [`/bans/${w.p.banned.id}`]),
    elsewhere("strikes this colony's member", undefined, "POST", (w) => [`/members/${w.p.target.id}/strikes`, { reason: "Rude" }]),
    elsewhere("removes this colony's member", undefined, "DELETE", (w) => [`/members/${w.p.target.id}`]),
    elsewhere("promotes this colony's member", undefined, "POST", (w) => [`/members/${w.p.target.id}/promote`]),
  ],
  // Spec §2.1, §7: a soft-deleted colony is 404 to everyone, its own moderators and site admins included.
  "a soft-deleted colony": [
    deleted("its founder changes its settings", as(founder), "PATCH", (w) => withBody(col(w), { description: "Still here?" })),
    deleted("its moderator reads its queue", as(mod), "GET", (w) => col(w, "/queue")),
    deleted("a site admin lists its bans", siteAdmin, "GET", (w) => col(w, "/bans")),
    deleted("a site admin bans one of its members", siteAdmin, "POST", (w) => withBody(col(w, `/bans/${w.p.target.id}`), {})),
    deleted("its banned user reads their ban", as((p) => p.banned), "GET", (w) => col(w, "/appeal")),
    deleted("its banned user writes to the moderators", as((p) => p.banned), "POST", (w) => withBody(col(w, "/modmail"), { body: "Hello?" })),
    deleted("a stranger joins it by name", as((p) => p.stranger), "POST", (w) => byName(w, "/join")),
    { ...deleted("its moderator accepts a pending transfer", as(mod), "POST", (w) => ({ url: `/api/v1/colonies/ownership-transfers/${w.refs.transfer}/accept` })), prepare: deleteAfter(transferToMod) },
    { ...deleted("its member accepts a pending invitation", as((p) => p.member), "POST", (w) => ({ url: `/api/v1/colonies/mod-invites/${w.refs.invite}/accept` })), prepare: deleteAfter((w) => invite(w, w.p.member)) },
  ],
  // Decisions §33: a member reads their own strikes.
  "own strikes": (["public", "private"] as const).map(
    (type): Case => ({ name: `a member of a ${type} colony reads their own strikes`, type, as: as(target), method: "GET", call: (w) => memberPath(w, target, "/strikes"), cell: 200 }),
  ),
};

for (const [group, cases] of Object.entries(CASES)) {
  describe(group, () => {
    for (const c of cases) {
      test(`${c.name} → ${expected(c.cell)}`, async () => {
        const w = world(env, c.type ?? "public");
        await c.prepare?.(w);
        await check(w, c.as(w), c.method, c.call(w), c.cell);
      });
    }
  });
}
