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
import { callerOrNull } from "./auth";
import type { Server } from "./client-ip";
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

export const idempotencyPlugin = (ctx: Ctx) => {
  const table = idempotencyKeys;
  const release = (userId: string, key: string) =>
    ctx.db.delete(table).where(and(eq(table.userId, userId), eq(table.key, key), eq(table.state, "in_progress"))).run();

  /** Looks the key up for the caller; a replay, a conflict or nothing (the request runs). */
  const claim = async (request: Request, server: Server, key: string): Promise<Response | undefined> => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/api/v1/")) return;
    if (!key.length || key.length > 255) return errorResponse(400, "INVALID_INPUT", "Idempotency-Key must be 1 to 255 characters");
    const caller = await callerOrNull(ctx, request, server);
    if (!caller) return; // the route answers 401/403 itself; nothing is stored

    const body = await request.clone().text();
    const hash = sha256Hex(`${request.method} ${url.pathname}${url.search}\n${body}`);
    const now = ctx.clock.now();
    const where = and(eq(table.userId, caller.id), eq(table.key, key));

    // Claim the key atomically: expired and stale records are cleared first.
    const claimed = ctx.db.transaction((tx) => {
      tx.delete(table)
        .where(and(where, or(lt(table.expiresAt, now), and(eq(table.state, "in_progress"), lt(table.createdAt, now - STALE_IN_PROGRESS_MS)))))
        .run();
      const existing = tx.select().from(table).where(where).get();
      if (existing) return existing;
      tx.insert(table)
        .values({ userId: caller.id, key, requestHash: hash, state: "in_progress", createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS })
        .run();
      return null;
    });

    if (!claimed) {
      stateOf(request).idempotency = { userId: caller.id, key };
      return;
    }
    if (claimed.requestHash !== hash) {
      return errorResponse(409, "idempotency_payload_mismatch", "This Idempotency-Key was already used with a different request body");
    }
    if (claimed.state === "in_progress") {
      return errorResponse(409, "idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry shortly", {}, { "Retry-After": "1" });
    }
    let stored: string;
    try {
      stored = claimed.body ? unseal(ctx.secrets.dataKey, claimed.body, sealAad(caller.id, key)) : "";
    } catch {
      // Sealed under another data key (a restored database): the answer cannot be replayed.
      return errorResponse(409, "idempotency_in_progress", "The stored answer for this Idempotency-Key cannot be replayed; use a new key");
    }
    const headers: Record<string, string> = { "Idempotent-Replay": "true" };
    if (claimed.contentType) headers["content-type"] = claimed.contentType;
    return new Response(claimed.status === 204 ? null : stored, { status: claimed.status ?? 200, headers });
  };

  /** Stores a 2xx answer for replay; frees the key of anything else. */
  const save = (idem: { userId: string; key: string }, res: Stored): void => {
    if (res.status >= 200 && res.status < 300) {
      ctx.db
        .update(table)
        // Sealed: answers such as a rotated key or recovery codes must not sit in the database in clear.
        .set({ state: "done", status: res.status, contentType: res.contentType, body: res.body ? seal(ctx.secrets.dataKey, res.body, sealAad(idem.userId, idem.key)) : "" })
        .where(and(eq(table.userId, idem.userId), eq(table.key, idem.key)))
        .run();
    } else release(idem.userId, idem.key);
  };

  return new Elysia({ name: "colony.idempotency" })
    // Sync for the common case (no key, or a read): only a keyed write pays for an await.
    .onRequest(({ request, server }) => {
      const key = request.headers.get("idempotency-key");
      if (key === null || !METHODS.has(request.method)) return;
      return claim(request, server, key);
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
