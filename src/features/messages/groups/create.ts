// Creating a group (spec Part 2 §2.8, §4.6, §8): POST /messages/groups and from-template. The
// creator joins as an accepted admin, every invitee named is invited (invites.ts), and a
// template's starter message is sent and pinned with the group.
import { eq } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import { uuidv7 } from "../../../core/ids";
import type { Caller } from "../../auth/service";
import type { UserRow } from "../../users/service";
import { assertCanSend, insertMessage, type ConversationRow, type MemberRow } from "../service";
import { conversationMembers, conversations, groupPins } from "../tables";
import { assertInvitable, MAX_MEMBERS, writeInvite } from "./invites";
import { cleanTitle, MAX_DESCRIPTION } from "./metadata";
import { findUser } from "./rows";
import { templateBySlug } from "./templates";

/** Invitees named when a group is created (spec Part 2 §4.6, §8). */
export const MAX_INITIAL_INVITEES = 49;

export interface CreateInput {
  title: string;
  members: readonly string[];
  description?: string | null;
  template?: string | null;
  starterMessage?: string | null;
}

export interface Created {
  conv: ConversationRow;
  members: { user: UserRow; member: MemberRow }[];
  starterMessageId: string | null;
}

/**
 * The invitees of a new group: every reference resolved to a live account (404 USER_NOT_FOUND
 * naming the ones that are not), duplicates and the creator dropped, 1..49 of them (400 INVALID_INPUT
 * for none, 400 LIMIT_EXCEEDED for more).
 */
function resolveInvitees(ctx: Ctx, caller: Caller, refs: readonly string[]): UserRow[] {
  const missing: string[] = [];
  const byId = new Map<string, UserRow>();
  for (const ref of refs) {
    if (!ref.trim()) continue;
    const u = findUser(ctx, ref);
    if (!u) missing.push(ref.trim());
    else if (u.id !== caller.id) byId.set(u.id, u);
  }
  if (missing.length) throw new ApiError(404, "USER_NOT_FOUND", `User not found: ${[...new Set(missing)].slice(0, 10).join(", ")}`);
  for (const u of byId.values()) assertInvitable(ctx, caller, u);
  if (byId.size === 0) throw new ApiError(400, "INVALID_INPUT", "A group needs at least one other member");
  if (byId.size > MAX_INITIAL_INVITEES) {
    throw new ApiError(400, "LIMIT_EXCEEDED", `A group has at most ${MAX_MEMBERS} members: invite at most ${MAX_INITIAL_INVITEES} others (got ${byId.size})`);
  }
  return [...byId.values()];
}

/** POST /messages/groups (and from-template): the creator as accepted admin, every invitee pending. */
export function create(ctx: Ctx, caller: Caller, input: CreateInput): Created {
  const title = cleanTitle(input.title);
  const description = input.description?.trim() ? input.description.trim().slice(0, MAX_DESCRIPTION) : null;
  assertCanSend(caller);
  const invitees = resolveInvitees(ctx, caller, input.members);
  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    const conv: ConversationRow = {
      id: uuidv7(now),
      kind: "group",
      pairKey: null,
      title,
      description,
      avatarPath: null,
      avatarUploadedAt: null,
      creatorId: caller.id,
      createdAt: now,
      lastMessageAt: null,
      lastMessageId: null,
      messageCount: 0,
      managedBy: null,
    };
    tx.insert(conversations).values(conv).run();
    tx.insert(conversationMembers)
      .values({ conversationId: conv.id, userId: caller.id, role: "admin", inviteStatus: "accepted", joinedAt: now, lastMessageAt: now, createdAt: now })
      .run();
    for (const u of invitees) writeInvite(tx, ctx, conv, caller.id, u.id, null);
    let starterMessageId: string | null = null;
    if (input.starterMessage) {
      const msg = insertMessage(tx, ctx, { conversationId: conv.id, senderId: caller.id, body: input.starterMessage }, "group");
      tx.insert(groupPins).values({ conversationId: conv.id, messageId: msg.id, pinnedBy: caller.id, pinnedAt: now }).run();
      starterMessageId = msg.id;
      conv.lastMessageAt = msg.createdAt;
      conv.lastMessageId = msg.id;
    }
    ctx.events.emit(tx, {
      type: "group_created",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { conversation_id: conv.id, title, invitee_ids: invitees.map((u) => u.id), template: input.template ?? null },
      activity: true,
    });
    const rows = tx.select().from(conversationMembers).where(eq(conversationMembers.conversationId, conv.id)).all();
    const usersById = new Map<string, UserRow>([[caller.id, caller.user], ...invitees.map((u) => [u.id, u] as const)]);
    const members = rows
      .sort((a, b) => (a.userId === caller.id ? -1 : b.userId === caller.id ? 1 : 0))
      .map((member) => ({ user: usersById.get(member.userId)!, member }));
    return { conv, members, starterMessageId };
  });
}

/** POST /messages/groups/from-template: a template's title, description and pinned starter message. */
export function createFromTemplate(ctx: Ctx, caller: Caller, templateId: string, members: readonly string[], titleOverride?: string | null): Created & { template: string } {
  const template = templateBySlug(templateId);
  if (!template) throw new ApiError(404, "NOT_FOUND", `Unknown group template: ${templateId}`);
  const created = create(ctx, caller, {
    title: titleOverride ?? template.title,
    members,
    description: template.description,
    template: template.slug,
    starterMessage: template.starter_pinned_message || null,
  });
  return { ...created, template: template.slug };
}
