// Modmail (spec Part 2 §4.2, §5): any signed-in user — banned from the colony or not — writes to
// the colony's moderators privately. Each user has one thread per colony: a group conversation
// (messages/groups/managed.ts) holding the user and the moderators of the moment, continued
// through the group messages API with its conversation_id. Moderators promoted later (and site
// admins) enter a thread with POST .../modmail/{conversation_id}/join. Bodies and membership:
// docs/decisions.md §39. Threads are managed groups (conversations.managed_by = 'modmail'): the
// group API refuses to change their members or identity, and whoever stops moderating the colony
// leaves its threads in the same transaction (leaveThreadsOnExit; §45).
import { and, count, desc, eq, inArray, lt, ne } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import { moderatorIds } from "../colonies/governance";
import { requireModPower } from "../colonies/permissions";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { addAcceptedMember, createManagedGroup, managedGroupsOf, removeFromManaged, sendManaged } from "../messages/groups/managed";
import { groupById } from "../messages/groups/access";
import { participant } from "../messages/service";
import { MAX_BODY } from "../messages/service";
import * as users from "../users/service";
import { colonyModmailThreads } from "./tables";

export type ModmailThreadRow = typeof colonyModmailThreads.$inferSelect;

/**
 * The colony modmail is addressed to. Deleted or missing is 404; a private colony is 404 unless
 * the caller is (or was, through a ban or an earlier thread) connected to it.
 */
function modmailColony(ctx: Ctx, caller: Caller, colonyId: string): ColonyRow {
  const colony = colonies.findColony(ctx, colonyId);
  if (!colony || colony.deletedAt !== null) throw notFound("Colony not found");
  if (colony.communityType === "private" && !caller.isAdmin) {
    const connected = colonies.memberRow(ctx, colony.id, caller.id) || colonies.activeBan(ctx, colony.id, caller.id) || threadOf(ctx, colony.id, caller.id);
    if (!connected) throw notFound("Colony not found");
  }
  return colony;
}

const threadOf = (ctx: Ctx, colonyId: string, userId: string): ModmailThreadRow | null =>
  ctx.db.select().from(colonyModmailThreads).where(and(eq(colonyModmailThreads.colonyId, colonyId), eq(colonyModmailThreads.userId, userId))).get() ?? null;

export interface OpenedModmail {
  conversation_id: string;
  colony_id: string;
  message_id: string;
  created: boolean;
}

/**
 * POST /colonies/{id}/modmail: sends `body` into the caller's thread for the colony, opening it
 * (seeded with the current moderators) when there is none, and bringing the caller back into it
 * if they had left. 400 INVALID_INPUT for a body empty after trimming.
 */
export function openModmail(ctx: Ctx, caller: Caller, colonyId: string, rawBody: string): OpenedModmail {
  const colony = modmailColony(ctx, caller, colonyId);
  const body = rawBody.trim();
  if (!body) throw invalid("body must not be empty");
  if (body.length > MAX_BODY) throw invalid(`body must be at most ${MAX_BODY} characters`);
  const existing = threadOf(ctx, colony.id, caller.id);
  const conv = existing ? groupById(ctx, existing.conversationId) : null;
  const now = ctx.clock.now();
  const sender = { id: caller.id, username: caller.username, displayName: caller.user.displayName };
  return ctx.db.transaction((tx) => {
    let created = false;
    let thread = conv;
    if (!thread) {
      const mods = moderatorIds(ctx, colony.id).filter((id) => id !== caller.id && users.isActive(users.findById(ctx, id)));
      thread = createManagedGroup(tx, ctx, {
        managedBy: "modmail",
        ownerId: caller.id,
        adminIds: mods,
        title: `Modmail: c/${colony.name} · @${caller.username}`,
        description: `Private thread between @${caller.username} and the moderators of c/${colony.name}.`,
      });
      if (existing) tx.update(colonyModmailThreads).set({ conversationId: thread.id, updatedAt: now }).where(and(eq(colonyModmailThreads.colonyId, colony.id), eq(colonyModmailThreads.userId, caller.id))).run();
      else tx.insert(colonyModmailThreads).values({ colonyId: colony.id, userId: caller.id, conversationId: thread.id, createdAt: now, updatedAt: now }).run();
      created = true;
    } else {
      addAcceptedMember(tx, ctx, thread, caller.id, "member");
      tx.update(colonyModmailThreads).set({ updatedAt: now }).where(and(eq(colonyModmailThreads.colonyId, colony.id), eq(colonyModmailThreads.userId, caller.id))).run();
    }
    const msg = sendManaged(tx, ctx, thread, sender, body);
    ctx.events.emit(tx, {
      type: "modmail_opened",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, conversation_id: thread.id, user_id: caller.id, created },
    });
    return { conversation_id: thread.id, colony_id: colony.id, message_id: msg.id, created };
  });
}

/** Marks a modmail thread active at `at` (every message in it, after commit); a no-op for other conversations. */
export function touchThread(ctx: Ctx, conversationId: string, at: number): void {
  ctx.db
    .update(colonyModmailThreads)
    .set({ updatedAt: at })
    .where(and(eq(colonyModmailThreads.conversationId, conversationId), lt(colonyModmailThreads.updatedAt, at)))
    .run();
}

export interface ModmailThreadListing {
  thread: ModmailThreadRow;
  user: users.UserRow | null;
  isParticipant: boolean;
  lastMessageAt: number | null;
}

/** GET /colonies/{id}/modmail: the colony's threads, newest activity first. Moderators only (403). */
export function listModmail(ctx: Ctx, caller: Caller, colonyId: string, page: Page): { items: ModmailThreadListing[]; total: number } {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller);
  const where = eq(colonyModmailThreads.colonyId, colony.id);
  const total = ctx.db.select({ n: count() }).from(colonyModmailThreads).where(where).get()?.n ?? 0;
  const rows = ctx.db
    .select()
    .from(colonyModmailThreads)
    .where(where)
    .orderBy(desc(colonyModmailThreads.updatedAt), desc(colonyModmailThreads.conversationId))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const byId = users.findManyByIds(ctx, rows.map((r) => r.userId));
  return {
    total,
    items: rows.map((thread) => ({
      thread,
      user: byId.get(thread.userId) ?? null,
      isParticipant: !!participant(ctx, thread.conversationId, caller.id),
      lastMessageAt: groupById(ctx, thread.conversationId)?.lastMessageAt ?? null,
    })),
  };
}

export function threadOut(l: ModmailThreadListing) {
  return {
    conversation_id: l.thread.conversationId,
    colony_id: l.thread.colonyId,
    user: l.user ? { id: l.user.id, username: l.user.username, display_name: l.user.displayName } : null,
    is_participant: l.isParticipant,
    created_at: iso(l.thread.createdAt),
    updated_at: iso(l.thread.updatedAt),
    last_message_at: iso(l.lastMessageAt),
  };
}

/**
 * POST /colonies/{id}/modmail/{conversation_id}/join: a moderator (or site admin) enters a thread
 * of the colony as a group admin. Idempotent (`joined: false` when already in). 404 when the
 * conversation is not a modmail thread of this colony.
 */
export function joinModmail(ctx: Ctx, caller: Caller, colonyId: string, conversationId: string): { conversation_id: string; colony_id: string; joined: boolean } {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller);
  const thread = isUuid(conversationId)
    ? ctx.db.select().from(colonyModmailThreads).where(and(eq(colonyModmailThreads.colonyId, colony.id), eq(colonyModmailThreads.conversationId, conversationId.toLowerCase()))).get()
    : undefined;
  const conv = thread ? groupById(ctx, thread.conversationId) : null;
  if (!thread || !conv) throw notFound("Modmail thread not found");
  if (participant(ctx, conv.id, caller.id)) return { conversation_id: conv.id, colony_id: colony.id, joined: false };
  ctx.db.transaction((tx) => {
    addAcceptedMember(tx, ctx, conv, caller.id, "admin");
    ctx.events.emit(tx, {
      type: "modmail_joined",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { colony_id: colony.id, conversation_id: conv.id, user_id: caller.id },
    });
  });
  return { conversation_id: conv.id, colony_id: colony.id, joined: true };
}

/**
 * A moderator exit (colonies/moderator-exits.ts, registered by governance-handlers.ts): whoever
 * stopped moderating the colony leaves every modmail thread of it they are in, inside the exit's
 * transaction and without group events (the exit's own event marks the write). Their own thread,
 * as its user, stays theirs; a site admin stays until they leave (site admins act as moderators
 * everywhere). Returns the threads they left.
 */
export function leaveThreadsOnExit(ctx: Ctx, tx: Tx, colonyId: string, userId: string): string[] {
  if (users.findById(ctx, userId)?.isAdmin) return [];
  const mine = managedGroupsOf(ctx, userId, "modmail");
  if (!mine.length) return [];
  const threads = tx
    .select({ id: colonyModmailThreads.conversationId })
    .from(colonyModmailThreads)
    .where(and(inArray(colonyModmailThreads.conversationId, mine), eq(colonyModmailThreads.colonyId, colonyId), ne(colonyModmailThreads.userId, userId)))
    .all()
    .map((r) => r.id);
  return removeFromManaged(tx, ctx, threads, userId);
}
