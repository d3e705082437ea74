// Web sessions of human accounts (docs/decisions.md §138). The cookie carries a random token; only
// its SHA-256 is stored, with the account, when it was made and last seen, the absolute expiry and
// the address and browser it was last seen from. A session ends after 30 days unused or 90 days
// after sign-in, whichever comes first (derived when read: ARCHITECTURE rule 7), when its owner
// signs it out (one, or everywhere), when the password changes, and when the account stops being
// an active human account or somebody else resets its credentials (`tokens_valid_after`).
import { and, desc, eq, lte, ne, or } from "drizzle-orm";
import { DAY, MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { hashSecret, randomBase62, uuidv7 } from "../../core/ids";
import { changes, type Tx } from "../../db/client";
import { prepared } from "../../db/statements";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import { isSuspended } from "../users/suspension";
import { webSessions } from "./tables";

export type SessionRow = typeof webSessions.$inferSelect;

const SESSION_IDLE_MS = 30 * DAY;
export const SESSION_ABSOLUTE_MS = 90 * DAY;
/** last_seen_at (and the address and browser shown in the sessions list) moves at most this often. */
const TOUCH_EVERY_MS = MINUTE;
const USER_AGENT_MAX = 300;

/** Where a request comes from, as the sessions list shows it. */
export interface ClientMeta {
  ip: string | null;
  userAgent: string | null;
}

export interface NewSession {
  /** The cookie's value: shown to the browser once, never stored. */
  token: string;
  session: SessionRow;
}

/** When the session ends if nothing else ends it first. */
const sessionEnds = (s: Pick<SessionRow, "lastSeenAt" | "expiresAt">): number => Math.min(s.lastSeenAt + SESSION_IDLE_MS, s.expiresAt);

const clip = (ua: string | null) => (ua ? ua.slice(0, USER_AGENT_MAX) : null);

/** Signs `userId` in: a new session (inside `tx` when given) and the token its cookie carries. */
export function startSession(ctx: Ctx, userId: string, meta: ClientMeta, tx: Tx = ctx.db): NewSession {
  const now = ctx.clock.now();
  const token = randomBase62(43);
  const session = tx
    .insert(webSessions)
    .values({ id: uuidv7(now), tokenHash: hashSecret(token), userId, createdAt: now, lastSeenAt: now, expiresAt: now + SESSION_ABSOLUTE_MS, ip: meta.ip, userAgent: clip(meta.userAgent) })
    .returning()
    .get();
  return { token, session };
}

interface ResolvedSession {
  session: SessionRow;
  user: UserRow;
}

const TOKEN_RE = /^[0-9A-Za-z]{43}$/;
const toSession = (raw: Record<string, unknown>): SessionRow => ({
  id: raw.id as string,
  tokenHash: raw.token_hash as string,
  userId: raw.user_id as string,
  createdAt: raw.created_at as number,
  lastSeenAt: raw.last_seen_at as number,
  expiresAt: raw.expires_at as number,
  ip: raw.ip as string | null,
  userAgent: raw.user_agent as string | null,
});

/** Whether a session still holds: used lately and not too old, its account an active human whose credentials were not reset since. */
function holds(session: SessionRow, user: UserRow | null | undefined, now: number): user is UserRow {
  return now < sessionEnds(session) && usersService.isActive(user) && user.userType === "human" && session.createdAt >= user.tokensValidAfter && !isSuspended(user, now);
}

/**
 * Whether the session `sessionId` is still signed in (the rule of resolveSession), without
 * counting as a use: a page's open live stream asks this as it runs (web/live-routes.ts).
 */
export function sessionLive(ctx: Ctx, sessionId: string): boolean {
  const byId = prepared(ctx.db, "webSessions.byId", () => ctx.db.$client.prepare("select * from web_sessions where id = ?"));
  const raw = byId.get(sessionId) as Record<string, unknown> | null;
  if (!raw) return false;
  const session = toSession(raw);
  return holds(session, usersService.findById(ctx, session.userId), ctx.clock.now());
}

/**
 * The session a cookie names and its account, or null when the token is unknown or the session is
 * over (a session found over is deleted). Every page view reads it, so through a statement
 * prepared once; the visit is recorded at most once a minute.
 */
export function resolveSession(ctx: Ctx, token: string, meta: ClientMeta): ResolvedSession | null {
  if (!TOKEN_RE.test(token)) return null;
  const byHash = prepared(ctx.db, "webSessions.byHash", () => ctx.db.$client.prepare("select * from web_sessions where token_hash = ?"));
  const raw = byHash.get(hashSecret(token)) as Record<string, unknown> | null;
  if (!raw) return null;
  const session = toSession(raw);
  const now = ctx.clock.now();
  const user = usersService.findById(ctx, session.userId);
  if (!holds(session, user, now)) {
    ctx.db.delete(webSessions).where(eq(webSessions.id, session.id)).run();
    return null;
  }
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) {
    const seen = { lastSeenAt: now, ip: meta.ip ?? session.ip, userAgent: clip(meta.userAgent) ?? session.userAgent };
    ctx.db.update(webSessions).set(seen).where(eq(webSessions.id, session.id)).run();
    Object.assign(session, seen);
  }
  return { session, user };
}

/** The account's live sessions, most recently used first. */
export function listSessions(ctx: Ctx, userId: string): SessionRow[] {
  const now = ctx.clock.now();
  return ctx.db
    .select()
    .from(webSessions)
    .where(eq(webSessions.userId, userId))
    .orderBy(desc(webSessions.lastSeenAt), desc(webSessions.id))
    .all()
    .filter((s) => now < sessionEnds(s));
}

/** Signs one of the account's sessions out; another account's session, or none, is 404. */
export function revokeSession(ctx: Ctx, userId: string, sessionId: string): void {
  const gone = changes(ctx.db.delete(webSessions).where(and(eq(webSessions.id, sessionId), eq(webSessions.userId, userId))).run());
  if (!gone) throw new ApiError(404, "NOT_FOUND", "That session is not signed in");
}

/** Signs out the session this cookie token names (nothing when it names none). */
export function endSession(ctx: Ctx, token: string): void {
  if (TOKEN_RE.test(token)) ctx.db.delete(webSessions).where(eq(webSessions.tokenHash, hashSecret(token))).run();
}

/**
 * Signs the account out everywhere (but in `keep`, the session that asked, when given). The hook
 * of every change that must end its sessions: a password change or reset, sign out everywhere,
 * the account's deletion; an account that stops being active is refused by resolveSession anyway.
 */
export function revokeAllSessions(ctx: Ctx, userId: string, opts: { keep?: string; tx?: Tx } = {}): number {
  const tx = opts.tx ?? ctx.db;
  return changes(tx.delete(webSessions).where(and(eq(webSessions.userId, userId), opts.keep ? ne(webSessions.id, opts.keep) : undefined)).run());
}

/** Deletes sessions that are over (a session is refused once over whether or not this has run). */
export function purgeEndedSessions(ctx: Ctx): number {
  const now = ctx.clock.now();
  return changes(ctx.db.delete(webSessions).where(or(lte(webSessions.expiresAt, now), lte(webSessions.lastSeenAt, now - SESSION_IDLE_MS))).run());
}
