// Idempotency (spec Part 1 §8.1) for every authenticated POST, PUT, PATCH and DELETE under
// /api/v1: an `Idempotency-Key` header (up to 255 chars, per user, 24 h) replays the stored
// status, body and content type with `Idempotent-Replay: true`; the same key with another body is
// 409 idempotency_payload_mismatch; a replay while the first request runs is 409
// idempotency_in_progress; non-2xx responses are not stored (the key is freed).
import { and, eq, lt, or } from "drizzle-orm";
import { Elysia, ElysiaCustomStatusResponse } from "elysia";
import { HOUR, MINUTE } from "../core/clock";
import type { Ctx } from "../core/context";
import { changes } from "../db/client";
import { sha256Hex } from "../core/ids";
import { seal, unseal } from "../core/secrets";
import { idempotencyKeys } from "../core/tables";
import { callerOrNull, revokedTokenOwner } from "./auth";
import { errorResponse } from "./errors";
import { isErrorContext, peekState, responseStatus, stateOf } from "./request-state";

export const IDEMPOTENCY_TTL_MS = 24 * HOUR;
/** An in-progress record older than this belongs to a request that died; it may be taken over. */
const STALE_IN_PROGRESS_MS = 5 * MINUTE;
const METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Binds a sealed answer to its owner and key: it cannot be replayed under another. */
const sealAad = (userId: string, key: string) => `idempotency:${userId}:${key}`;

type Stored = { status: number; contentType: string | null; body: string };

/** The response as it will be sent: status, content type and body text (a Response's later). */
function serialise(value: unknown, set: { status?: number | string; headers?: Record<string, unknown> }): Stored | Promise<Stored> {
  const status = responseStatus(value, set);
  if (value instanceof ElysiaCustomStatusResponse) value = value.response;
  if (value instanceof Response) {
    const res = value;
    return res.clone().text().then((body) => ({ status: res.status, contentType: res.headers.get("content-type"), body }));
  }
  const declared = set.headers?.["content-type"] ?? set.headers?.["Content-Type"];
  const contentType = typeof declared === "string" ? declared : null;
  if (value === undefined || value === null) return { status, contentType, body: "" };
  if (typeof value === "string") return { status, contentType: contentType ?? "text/plain;charset=utf-8", body: value };
  return { status, contentType: contentType ?? "application/json", body: JSON.stringify(value) };
}

/** What a key holds for a request: run it (the key is now taken), or an earlier answer or conflict. */
type KeyClaim =
  | { kind: "run" }
  | { kind: "replay"; status: number; contentType: string | null; body: string }
  | { kind: "mismatch" }
  | { kind: "in_progress" }
  | { kind: "unreadable" };

/**
 * Claims `key` of `userId` for a request whose fingerprint is `hash`, atomically (expired and
 * stale records are cleared first). Shared by the REST plugin and the MCP tools.
 */
export function claimKey(ctx: Ctx, userId: string, key: string, hash: string): KeyClaim {
  const table = idempotencyKeys;
  const now = ctx.clock.now();
  const where = and(eq(table.userId, userId), eq(table.key, key));
  const claimed = ctx.db.transaction((tx) => {
    tx.delete(table)
      .where(and(where, or(lt(table.expiresAt, now), and(eq(table.state, "in_progress"), lt(table.createdAt, now - STALE_IN_PROGRESS_MS)))))
      .run();
    const existing = tx.select().from(table).where(where).get();
    if (existing) return existing;
    tx.insert(table).values({ userId, key, requestHash: hash, state: "in_progress", createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS }).run();
    return null;
  });
  if (!claimed) return { kind: "run" };
  if (claimed.requestHash !== hash) return { kind: "mismatch" };
  if (claimed.state === "in_progress") return { kind: "in_progress" };
  // Sealed under another data key (a restored database): the answer cannot be replayed.
  return replayOf(ctx, claimed, userId, key) ?? { kind: "unreadable" };
}

type Replay = Extract<KeyClaim, { kind: "replay" }>;

/** A stored answer's replay, unsealed; null when it cannot be unsealed. */
function replayOf(ctx: Ctx, row: typeof idempotencyKeys.$inferSelect, userId: string, key: string): Replay | null {
  try {
    const body = row.body ? unseal(ctx.secrets.dataKey, row.body, sealAad(userId, key)) : "";
    return { kind: "replay", status: row.status ?? 200, contentType: row.contentType, body };
  } catch {
    return null;
  }
}

/** Frees a claimed key (the request failed: nothing is stored). */
export function releaseKey(ctx: Ctx, userId: string, key: string): void {
  const table = idempotencyKeys;
  ctx.db.delete(table).where(and(eq(table.userId, userId), eq(table.key, key), eq(table.state, "in_progress"))).run();
}

/** Stores a 2xx answer for replay; frees the key of anything else. */
export function saveKey(ctx: Ctx, userId: string, key: string, res: Stored): void {
  if (res.status < 200 || res.status >= 300) return releaseKey(ctx, userId, key);
  const table = idempotencyKeys;
  ctx.db
    .update(table)
    // Sealed: answers such as a rotated key or recovery codes must not sit in the database in clear.
    .set({ state: "done", status: res.status, contentType: res.contentType, body: res.body ? seal(ctx.secrets.dataKey, res.body, sealAad(userId, key)) : "" })
    .where(and(eq(table.userId, userId), eq(table.key, key)))
    .run();
}

export const IDEMPOTENCY_MISMATCH = { status: 409, code: "idempotency_payload_mismatch", message: "This Idempotency-Key was already used with a different request body" } as const;
export const IDEMPOTENCY_IN_PROGRESS = { status: 409, code: "idempotency_in_progress", message: "A request with this Idempotency-Key is still being processed; retry shortly" } as const;
export const IDEMPOTENCY_UNREADABLE = { status: 409, code: "idempotency_in_progress", message: "The stored answer for this Idempotency-Key cannot be replayed; use a new key" } as const;

/** The route whose stored answer a token it revoked may still fetch (see replayForRevokedToken). */
const ROTATE_KEY_PATH = "/api/v1/auth/rotate-key";
/** How long after a rotation its answer is replayed to the token it revoked. */
const REVOKED_REPLAY_MS = 10 * MINUTE;

/** The stored 2xx answer of `key` for this request (`hash`), made within `withinMs`; null otherwise. Reads only. */
function storedAnswer(ctx: Ctx, userId: string, key: string, hash: string, withinMs: number): Replay | null {
  const table = idempotencyKeys;
  const row = ctx.db.select().from(table).where(and(eq(table.userId, userId), eq(table.key, key))).get();
  if (!row || row.state !== "done" || row.requestHash !== hash || row.createdAt < ctx.clock.now() - withinMs) return null;
  return replayOf(ctx, row, userId, key);
}

/** A stored answer, sent again with `Idempotent-Replay: true`. */
function replayed(c: Replay): Response {
  const headers: Record<string, string> = { "Idempotent-Replay": "true" };
  if (c.contentType) headers["content-type"] = c.contentType;
  return new Response(c.status === 204 ? null : c.body, { status: c.status, headers });
}

export const idempotencyPlugin = (ctx: Ctx) => {
  const release = (userId: string, key: string) => releaseKey(ctx, userId, key);

  /** Looks the key up for the caller; a replay, a conflict or nothing (the request runs). */
  const claim = async (request: Request, key: string): Promise<Response | undefined> => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/api/v1/")) return;
    if (!key.length || key.length > 255) return errorResponse(400, "INVALID_INPUT", "Idempotency-Key must be 1 to 255 characters");
    const caller = await callerOrNull(ctx, request);
    const hash = async () => sha256Hex(`${request.method} ${url.pathname}${url.search}\n${await request.clone().text()}`);
    if (!caller) return replayForRevokedToken(request, url, key, hash); // else the route answers 401/403 itself; nothing is stored

    const c = claimKey(ctx, caller.id, key, await hash());
    switch (c.kind) {
      case "run":
        stateOf(request).idempotency = { userId: caller.id, key };
        return;
      case "mismatch":
        return errorResponse(IDEMPOTENCY_MISMATCH.status, IDEMPOTENCY_MISMATCH.code, IDEMPOTENCY_MISMATCH.message);
      case "in_progress":
        return errorResponse(IDEMPOTENCY_IN_PROGRESS.status, IDEMPOTENCY_IN_PROGRESS.code, IDEMPOTENCY_IN_PROGRESS.message, {}, { "Retry-After": "1" });
      case "unreadable":
        return errorResponse(IDEMPOTENCY_UNREADABLE.status, IDEMPOTENCY_UNREADABLE.code, IDEMPOTENCY_UNREADABLE.message);
      case "replay":
        return replayed(c);
    }
  };

  /**
   * A rotation of one's own key revokes the token that asked for it (features/auth/service.ts
   * rotateKey), so a retry whose answer was lost could never learn the new key: a retry of that
   * rotation with the same token and Idempotency-Key, within REVOKED_REPLAY_MS, still gets the
   * stored answer. Nothing else is answered to a revoked token.
   */
  const replayForRevokedToken = async (request: Request, url: URL, key: string, hash: () => Promise<string>): Promise<Response | undefined> => {
    if (request.method !== "POST" || url.pathname !== ROTATE_KEY_PATH) return;
    const userId = await revokedTokenOwner(ctx, request);
    if (!userId) return;
    const stored = storedAnswer(ctx, userId, key, await hash(), REVOKED_REPLAY_MS);
    return stored ? replayed(stored) : undefined;
  };

  const save = (idem: { userId: string; key: string }, res: Stored): void => saveKey(ctx, idem.userId, idem.key, res);

  return new Elysia({ name: "colony.idempotency" })
    // Sync for the common case (no key, or a read): only a keyed write pays for an await.
    .onRequest(({ request }) => {
      const key = request.headers.get("idempotency-key");
      if (key === null || !METHODS.has(request.method)) return;
      return claim(request, key);
    })
    // Synchronous, so that no route awaits it; a Response body is read and stored in the
    // background (until then a concurrent replay is told the request is still in progress).
    .mapResponse({ as: "global" }, (c) => {
      const { request, responseValue, set, error } = c as typeof c & { error?: unknown };
      const state = peekState(request);
      const idem = state?.idempotency;
      if (!state || !idem) return;
      // On the error path this hook can run before the error is rendered; wait for the response.
      if (isErrorContext(error) && responseValue === undefined) return;
      state.idempotency = undefined;
      const res = serialise(responseValue, set as Parameters<typeof serialise>[1]);
      if (!(res instanceof Promise)) return void save(idem, res);
      res.then(
        (r) => save(idem, r),
        (err) => {
          ctx.log.error("idempotency record not stored", { error: String(err) });
          release(idem.userId, idem.key);
        },
      );
    });
};

/** Deletes expired idempotency records (run by the maintenance schedule). */
export function purgeExpiredIdempotencyKeys(ctx: Ctx): number {
  return changes(ctx.db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, ctx.clock.now())).run());
}
