// The one handle namespace (docs/decisions.md §1, §57, §83). Every feature that gives out a
// name — registration, colony creation, organisation creation and rename, site wiki pages — claims it here, inside the
// transaction of its own insert: the claim is one statement on the `handles` primary key, so of
// two concurrent creations of the same name exactly one commits, whichever features they come
// through. Features keep their own format rules, reserved words and error codes; the question
// "is this name free?" has one answer, here.
import { and, eq, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { Tx } from "../../db/client";
import { handles, type HandleKind } from "./tables";

export type { HandleKind } from "./tables";

/** Handles compare without case and surrounding space. */
export const normaliseHandle = (raw: string) => raw.trim().toLowerCase();

interface Holder {
  kind: HandleKind;
  ownerId: string | null;
}

/** What a claim names: the feature's kind of holder and its id. */
interface HandleOwner {
  kind: Exclude<HandleKind, "retired">;
  id: string;
}

/** Thrown by `claimHandle` when someone else holds the name (or it is retired). */
export class HandleTaken extends Error {
  constructor(
    readonly handle: string,
    readonly holder: Holder | null,
  ) {
    super(`The handle ${handle} is taken`);
    this.name = "HandleTaken";
  }
}

/** Who holds a handle now; null when it is free (never used, or a lapsed pending hold). */
export function holderOf(ctx: Ctx, raw: string): Holder | null {
  const row = ctx.db.select().from(handles).where(eq(handles.handle, normaliseHandle(raw))).get();
  if (!row || (row.expiresAt !== null && row.expiresAt <= ctx.clock.now())) return null;
  return { kind: row.kind, ownerId: row.ownerId };
}

/**
 * Claims `raw` for `owner` inside `tx` (the transaction of the owner's own insert). Succeeds on a
 * free handle, over a lapsed hold (`expires_at` passed), again for the same owner, and for an
 * owner taking back a handle retired from it (an organisation renamed back). Anything else throws
 * HandleTaken. `expiresAt` makes the hold lapse at that instant unless confirmed.
 */
export function claimHandle(ctx: Ctx, tx: Tx, raw: string, owner: HandleOwner, opts: { expiresAt?: number | null } = {}): string {
  const handle = normaliseHandle(raw);
  const now = ctx.clock.now();
  const won = tx
    .insert(handles)
    .values({ handle, kind: owner.kind, ownerId: owner.id, expiresAt: opts.expiresAt ?? null, createdAt: now })
    .onConflictDoUpdate({
      target: handles.handle,
      set: { kind: owner.kind, ownerId: owner.id, expiresAt: opts.expiresAt ?? null, createdAt: now },
      setWhere: sql`(${handles.expiresAt} is not null and ${handles.expiresAt} <= ${now})
        or (${handles.ownerId} = ${owner.id} and ${handles.kind} in (${owner.kind}, 'retired'))`,
    })
    .returning({ handle: handles.handle })
    .get();
  if (!won) throw new HandleTaken(handle, holderOf(ctx, handle));
  return handle;
}

/** Makes an owner's lapsing holds permanent (a pending registration confirmed). */
export function confirmHandles(tx: Tx, owner: HandleOwner): void {
  tx.update(handles)
    .set({ expiresAt: null })
    .where(and(eq(handles.kind, owner.kind), eq(handles.ownerId, owner.id)))
    .run();
}

/** Frees every handle an owner holds (a self-deleted account, a purged pending registration). */
export function releaseHandles(tx: Tx, owner: HandleOwner): void {
  tx.delete(handles)
    .where(and(eq(handles.kind, owner.kind), eq(handles.ownerId, owner.id)))
    .run();
}

/**
 * Reserves a handle for good (docs/decisions.md §1): a renamed or deleted organisation's slug, a
 * retired username. The last holder is kept, so an organisation may take its old slug back.
 */
export function retireHandle(ctx: Ctx, tx: Tx, raw: string, lastHolderId: string | null): void {
  const handle = normaliseHandle(raw);
  tx.insert(handles)
    .values({ handle, kind: "retired", ownerId: lastHolderId, expiresAt: null, createdAt: ctx.clock.now() })
    .onConflictDoUpdate({ target: handles.handle, set: { kind: "retired", ownerId: sql`coalesce(${lastHolderId}, ${handles.ownerId})`, expiresAt: null } })
    .run();
}
