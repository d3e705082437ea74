// Group conversations (spec Part 2 §2.8, §3 "Group invite", §4.6, §6.2, §8): creating groups,
// reading and sending, membership (invites, answers, leaving, removal, admins, the creator role),
// per-member settings (receipts, snooze, mute) and pins. Built on the shared messaging model in
// ../service.ts (participants, send validation, insertMessage, read state, cold contacts).
//
// Visibility: a group is visible only to its participants (accepted, not left). Everyone else —
// strangers, former members, invitees who declined and pending invitees — gets 404 NOT_FOUND on
// every group route; a pending invitee may only answer the invite (invite/respond).
//
// Managed groups (conversations.managed_by; modmail threads, docs/decisions.md §45): another
// feature governs their members and identity, so every membership or identity change here goes
// through requireChangeable, which refuses them with 403 FORBIDDEN. Leaving stays open to every
// participant; reading, sending, pins and the per-member settings work as in any group.
import * as blocks from "../../blocks/service";
import { and, asc, count, desc, eq, inArray, isNull } from "drizzle-orm";
import { DAY, HOUR, iso } from "../../../core/clock";
import type { Ctx } from "../../../core/context";
import { ApiError, FieldError } from "../../../core/errors";
import { isUuid, uuidv7 } from "../../../core/ids";
import { inTransaction } from "../../../db/client";
import type { Page } from "../../../core/paging";
import type { Caller } from "../../auth/service";
import * as users from "../../users/service";
import type { UserRow } from "../../users/service";
import {
  assertCanSend,
  conversationById,
  insertMessage,
  isCold,
  memberRow,
  messageById,
  participantIds,
  preview,
  recordColdContact,
  validateSendInput,
  type ConversationRow,
  type MemberRow,
  type MessageRow,
  type SendInput,
  type Tx,
} from "../service";
import { conversationMembers, conversations, groupPins, messageDrafts, messages, type ManagedBy } from "../tables";
import { readConversation } from "../direct";
import { templateBySlug } from "./templates";

/** Members of a group, the creator included (spec Part 2 §2.8, §8). */
export const MAX_MEMBERS = 50;
/** Invitees named when a group is created (spec Part 2 §4.6, §8). */
export const MAX_INITIAL_INVITEES = 49;
export const MAX_PINS = 5;
/** Distinct @username mentions per message; @everyone is not counted (spec Part 2 §4.6, §8). */
export const MAX_MENTIONS = 20;
export const MAX_TITLE = 100;
export const MAX_DESCRIPTION = 500;
/** `muted_until` of a group muted "forever" (9999-12-31T23:59:59.999Z); shown as null on the wire. */
export const MUTED_FOREVER = 253_402_300_799_999;
/** "until_morning" snoozes until the next 08:00 UTC (the server has no per-user time zone). */
export const MORNING_HOUR_UTC = 8;

export const SNOOZE_DURATIONS = ["1h", "3h", "until_morning", "1d", "1w"] as const;
export type SnoozeDuration = (typeof SNOOZE_DURATIONS)[number];
export const MUTE_DURATIONS = ["1h", "8h", "1d", "1w", "forever"] as const;
export type MuteDuration = (typeof MUTE_DURATIONS)[number];

const notFound = () => new ApiError(404, "NOT_FOUND", "Group not found");

// ---------------------------------------------------------------------------------------------
// Lookups and permission checks

export interface GroupAccess {
  conv: ConversationRow;
  member: MemberRow;
}

/** The group when `convId` names one, else null (direct conversations are not groups here). */
export function groupById(ctx: Ctx, convId: string): ConversationRow | null {
  const conv = conversationById(ctx, convId);
  return conv && conv.kind === "group" ? conv : null;
}

/** The group and the caller's member row; 404 NOT_FOUND unless the caller participates. */
export function requireMember(ctx: Ctx, caller: Pick<Caller, "id">, convId: string): GroupAccess {
  const conv = groupById(ctx, convId);
  if (!conv) throw notFound();
  const member = memberRow(ctx, conv.id, caller.id);
  if (!member || member.inviteStatus !== "accepted" || member.leftAt !== null) throw notFound();
  return { conv, member };
}

/**
 * Admins, and the creator (an implicit admin) — except in a managed group, whose creator is the
 * member it exists for (a modmail thread's user) and holds no admin rights there.
 */
export const isAdmin = (conv: Pick<ConversationRow, "creatorId" | "managedBy">, m: Pick<MemberRow, "role" | "userId">) =>
  m.role === "admin" || (conv.managedBy === null && conv.creatorId === m.userId);

/** As requireMember, and the caller must be an admin (403 FORBIDDEN otherwise). */
export function requireAdmin(ctx: Ctx, caller: Pick<Caller, "id">, convId: string): GroupAccess {
  const access = requireMember(ctx, caller, convId);
  if (!isAdmin(access.conv, access.member)) throw new ApiError(403, "FORBIDDEN", "Only group admins can do that");
  return access;
}

/** What a managed group answers to a change of its members or identity through the group API. */
const MANAGED_REFUSAL: Record<ManagedBy, string> = {
  modmail: "This is a modmail thread: its members, title, description and avatar are managed by the colony's moderators, not through the group API",
};

/**
 * The gate of every change to a group's membership or identity — invites, removing someone else,
 * admin flags, the creator role, title, description, avatar: the caller participates (404
 * NOT_FOUND otherwise), the group is not managed by another feature (403 FORBIDDEN, the one
 * refusal of such changes), and with `need: "admin"` the caller is an admin (403 FORBIDDEN).
 */
export function requireChangeable(ctx: Ctx, caller: Pick<Caller, "id">, convId: string, need: "admin" | "member"): GroupAccess {
  const access = requireMember(ctx, caller, convId);
  if (access.conv.managedBy !== null) throw new ApiError(403, "FORBIDDEN", MANAGED_REFUSAL[access.conv.managedBy]);
  if (need === "admin" && !isAdmin(access.conv, access.member)) throw new ApiError(403, "FORBIDDEN", "Only group admins can do that");
  return access;
}

/** An account by username or by user id (the reference accepts both), live or not. */
function userByRef(ctx: Ctx, ref: string): UserRow | null {
  const s = ref.trim();
  return isUuid(s) ? users.findById(ctx, s.toLowerCase()) : users.findByUsername(ctx, users.normaliseUsername(s));
}

/** A live account by username or by user id; null when there is none. */
export function findUser(ctx: Ctx, ref: string): UserRow | null {
  const u = userByRef(ctx, ref);
  return users.isActive(u) ? u : null;
}

/** Every member row of the group still in it (accepted or pending, not left or declined). */
export function currentMembers(ctx: Ctx, convId: string): MemberRow[] {
  return ctx.db
    .select()
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, convId), inArray(conversationMembers.inviteStatus, ["accepted", "pending"]), isNull(conversationMembers.leftAt)))
    .all();
}

const acceptedOf = (rows: readonly MemberRow[]) => rows.filter((m) => m.inviteStatus === "accepted");

const isMuted = (m: Pick<MemberRow, "mutedUntil">, now: number) => m.mutedUntil !== null && m.mutedUntil > now;
const isSnoozed = (m: Pick<MemberRow, "snoozedUntil">, now: number) => m.snoozedUntil !== null && m.snoozedUntil > now;

/** Writes the caller's own per-group setting (and its event: every write emits one). */
function saveSetting(ctx: Ctx, convId: string, userId: string, values: Partial<MemberRow>): void {
  ctx.db.transaction((tx) => {
    setMember(tx, convId, userId, values);
    ctx.events.emit(tx, {
      type: "group_settings_changed",
      actorId: userId,
      subject: { type: "conversation", id: convId },
      payload: { conversation_id: convId, user_id: userId, changed: Object.keys(values) },
    });
  });
}

function setMember(tx: Tx, convId: string, userId: string, values: Partial<MemberRow>): void {
  tx.update(conversationMembers)
    .set(values)
    .where(and(eq(conversationMembers.conversationId, convId), eq(conversationMembers.userId, userId)))
    .run();
}

// ---------------------------------------------------------------------------------------------
// Create

export interface CreateInput {
  title: string;
  members: readonly string[];
  description?: string | null;
  template?: string | null;
  starterMessage?: string | null;
}

function cleanTitle(raw: string): string {
  const title = raw.trim();
  if (!title) throw new ApiError(400, "INVALID_INPUT", "title must not be empty");
  if (title.length > MAX_TITLE) throw new FieldError(["query", "title"], `title must be at most ${MAX_TITLE} characters`, raw, "string_too_long");
  return title;
}

/** Nobody is put in a group with someone they block or who blocks them: 403 FORBIDDEN. */
function assertInvitable(ctx: Ctx, caller: Caller, u: UserRow): void {
  if (blocks.blockedEitherWay(ctx, caller.id, u.id)) throw new ApiError(403, "FORBIDDEN", `You cannot add @${u.username}: one of you blocks the other`);
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

/** The pending member row of an invitee (a new row, or a former member/decliner invited again). */
function writeInvite(tx: Tx, ctx: Ctx, conv: Pick<ConversationRow, "id" | "lastMessageAt">, inviterId: string, userId: string, existing: MemberRow | null): void {
  const now = ctx.clock.now();
  const values = {
    role: "member" as const,
    inviteStatus: "pending" as const,
    invitedBy: inviterId,
    invitedAt: now,
    joinedAt: null,
    leftAt: null,
    hiddenAt: null,
    mutedUntil: null,
    snoozedUntil: null,
    lastMessageAt: conv.lastMessageAt ?? now,
  };
  if (existing) setMember(tx, conv.id, userId, values);
  else tx.insert(conversationMembers).values({ conversationId: conv.id, userId, createdAt: now, ...values }).run();
  // An invite to a stranger spends the inviter's cold-contact budget (spec Part 2 §8).
  if (isCold(ctx, inviterId, userId)) recordColdContact(tx, ctx, inviterId, userId, conv.id, "group_invite");
}

export interface Created {
  conv: ConversationRow;
  members: { user: UserRow; member: MemberRow }[];
  starterMessageId: string | null;
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

// ---------------------------------------------------------------------------------------------
// Reading

/** How many accepted and pending members the group has. */
export function memberCounts(ctx: Ctx, convId: string): { accepted: number; pending: number } {
  const rows = ctx.db
    .select({ status: conversationMembers.inviteStatus, n: count() })
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, convId), isNull(conversationMembers.leftAt)))
    .groupBy(conversationMembers.inviteStatus)
    .all();
  return { accepted: rows.find((r) => r.status === "accepted")?.n ?? 0, pending: rows.find((r) => r.status === "pending")?.n ?? 0 };
}

/**
 * Marks the group read for the caller and emits `messages_read` (→ dm.group_read to the other
 * members, with the newest message and its read count) through the shared readConversation —
 * addressed to nobody while the caller's receipts are off here (the event still marks the write).
 */
export function readGroup(ctx: Ctx, conv: ConversationRow, member: MemberRow): number {
  const receiptsOff = member.receipts === "off";
  const others = () => (receiptsOff ? [] : acceptedOf(currentMembers(ctx, conv.id)).map((m) => m.userId).filter((id) => id !== member.userId));
  return readConversation(ctx, conv, member.userId, others, { receipts_off: receiptsOff });
}

/** The newest `limit` messages after skipping `offset` from the newest, oldest first, and the total. */
export function latestMessages(ctx: Ctx, convId: string, page: Page): { rows: MessageRow[]; total: number } {
  const total = ctx.db.select({ n: count() }).from(messages).where(eq(messages.conversationId, convId)).get()?.n ?? 0;
  const rows = ctx.db.select().from(messages).where(eq(messages.conversationId, convId)).orderBy(desc(messages.id)).limit(page.limit).offset(page.offset).all().reverse();
  return { rows, total };
}

/** The group's pinned messages that are still live, in pin order. */
export function pinnedMessages(ctx: Ctx, convId: string): MessageRow[] {
  return ctx.db
    .select({ m: messages })
    .from(groupPins)
    .innerJoin(messages, eq(messages.id, groupPins.messageId))
    .where(and(eq(groupPins.conversationId, convId), isNull(messages.deletedAt)))
    .orderBy(asc(groupPins.pinnedAt), asc(groupPins.messageId))
    .all()
    .map((r) => r.m);
}

// ---------------------------------------------------------------------------------------------
// Metadata

/** PATCH /messages/groups/{id}: title (1-100 after trimming) and description (max 500; "" or null clears). */
export function updateMetadata(ctx: Ctx, caller: Caller, convId: string, input: { title?: string; description?: string | null }) {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  const set: Partial<ConversationRow> = {};
  if (input.title !== undefined) set.title = cleanTitle(input.title);
  if (input.description !== undefined) {
    const d = input.description?.trim() ?? "";
    if (d.length > MAX_DESCRIPTION) throw new FieldError(["body", "description"], `description must be at most ${MAX_DESCRIPTION} characters`, input.description, "string_too_long");
    set.description = d || null;
  }
  if (!Object.keys(set).length) return { title: conv.title, description: conv.description };
  return ctx.db.transaction((tx) => {
    const row = tx.update(conversations).set(set).where(eq(conversations.id, conv.id)).returning().get()!;
    ctx.events.emit(tx, {
      type: "group_updated",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { conversation_id: conv.id, title: row.title, description: row.description, changed: Object.keys(set) },
    });
    return { title: row.title, description: row.description };
  });
}

// ---------------------------------------------------------------------------------------------
// Sending

/** `@name` as a mention (same shape as post mentions: 3-32 letters, digits, `-`, `_`). */
const MENTION_RE = /(^|[^A-Za-z0-9_@./-])@([A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9])(?![A-Za-z0-9_-])/g;

/** The distinct lower-case @usernames of a body and whether it addresses @everyone. */
export function parseMentions(body: string): { names: string[]; everyone: boolean } {
  const names = new Set<string>();
  let everyone = false;
  for (const m of body.matchAll(MENTION_RE)) {
    const name = m[2].toLowerCase();
    if (name === "everyone") everyone = true;
    else names.add(name);
  }
  return { names: [...names], everyone };
}

/**
 * POST /messages/groups/{id}/send. Checks (participant, karma floor, payload, at most 20 distinct
 * @mentions → 400 LIMIT_EXCEEDED), then one transaction: the message, the sender's group draft
 * cleared, `group_message` to every other member except those who muted the group (unless
 * @-named or @everyone), and `group_mention` to the members @-named (everyone on @everyone).
 */
export function send(ctx: Ctx, caller: Caller, convId: string, input: SendInput): MessageRow {
  const { conv } = requireMember(ctx, caller, convId);
  assertCanSend(caller);
  const valid = validateSendInput(ctx, caller.id, conv.id, input);
  const mentions = parseMentions(valid.body);
  if (mentions.names.length > MAX_MENTIONS) {
    throw new ApiError(400, "LIMIT_EXCEEDED", `A message may @mention at most ${MAX_MENTIONS} members (found ${mentions.names.length}); use @everyone to address the whole group`);
  }
  return inTransaction(ctx.db, (tx) => {
    const msg = insertMessage(tx, ctx, { conversationId: conv.id, senderId: caller.id, body: valid.body, replyToId: valid.replyToId, attachmentIds: valid.attachmentIds }, "group");
    tx.delete(messageDrafts).where(and(eq(messageDrafts.userId, caller.id), eq(messageDrafts.conversationId, conv.id))).run();
    const now = ctx.clock.now();
    const others = acceptedOf(currentMembers(ctx, conv.id)).filter((m) => m.userId !== caller.id);
    const names = new Set(mentions.names);
    const othersById = users.findManyByIds(ctx, others.map((m) => m.userId));
    const mentioned = others.filter((m) => names.has(othersById.get(m.userId)?.username.toLowerCase() ?? "")).map((m) => m.userId);
    const addressed = new Set(mentions.everyone ? others.map((m) => m.userId) : mentioned);
    const recipients = others.filter((m) => !isMuted(m, now) || addressed.has(m.userId)).map((m) => m.userId);
    const common = {
      message_id: msg.id,
      conversation_id: conv.id,
      conversation_title: conv.title,
      sender_id: caller.id,
      sender_username: caller.username,
      sender: caller.username,
      sender_display_name: caller.user.displayName,
      body_excerpt: preview(msg.body),
      preview: preview(msg.body),
    };
    ctx.events.emit(tx, {
      type: "group_message",
      actorId: caller.id,
      subject: { type: "message", id: msg.id },
      payload: { recipient_ids: recipients, ...common, mentioned_user_ids: mentioned, everyone: mentions.everyone },
      activity: true,
    });
    if (addressed.size) {
      ctx.events.emit(tx, {
        type: "group_mention",
        actorId: caller.id,
        subject: { type: "message", id: msg.id },
        payload: { recipient_ids: [...addressed], ...common, everyone: mentions.everyone },
      });
    }
    return msg;
  });
}

// ---------------------------------------------------------------------------------------------
// Membership

/** Accepted members, then pending invitees, each as {user, member}; accounts no longer live are left out. */
export function listMembers(ctx: Ctx, caller: Caller, convId: string) {
  const { conv } = requireMember(ctx, caller, convId);
  const rows = currentMembers(ctx, conv.id);
  const byId = users.findManyByIds(ctx, rows.map((r) => r.userId));
  const order = (m: MemberRow) => (m.inviteStatus === "accepted" ? [0, m.joinedAt ?? 0] : [1, m.invitedAt ?? 0]);
  const sorted = rows.sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1] || (a.userId < b.userId ? -1 : 1);
  });
  return {
    conv,
    members: sorted.flatMap((member) => {
      const user = byId.get(member.userId);
      return users.isActive(user) ? [{ user, member }] : [];
    }),
  };
}

/**
 * POST /messages/groups/{id}/members: an admin invites `username` (pending). Already accepted or
 * pending: nothing changes (`added: false, already_member: true`). A former member or one who
 * declined is invited again. The group holds at most 50 members counting pending invites
 * (400 LIMIT_EXCEEDED). Emits `group_member_added` to every accepted member.
 */
export function invite(ctx: Ctx, caller: Caller, convId: string, username: string) {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  assertCanSend(caller);
  const target = findUser(ctx, username);
  if (!target) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  assertInvitable(ctx, caller, target);
  const existing = memberRow(ctx, conv.id, target.id);
  if (existing && existing.leftAt === null && (existing.inviteStatus === "accepted" || existing.inviteStatus === "pending")) {
    return { added: false, already_member: true, username: target.username, invite_status: existing.inviteStatus };
  }
  const current = currentMembers(ctx, conv.id);
  if (current.length >= MAX_MEMBERS) throw new ApiError(400, "LIMIT_EXCEEDED", `A group has at most ${MAX_MEMBERS} members, pending invites included`);
  return ctx.db.transaction((tx) => {
    writeInvite(tx, ctx, conv, caller.id, target.id, existing);
    ctx.events.emit(tx, {
      type: "group_member_added",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: {
        recipient_ids: acceptedOf(current).map((m) => m.userId),
        conversation_id: conv.id,
        actor: caller.username,
        actor_id: caller.id,
        added: target.username,
        added_user_id: target.id,
      },
    });
    return { added: true, already_member: false, username: target.username, invite_status: "pending" };
  });
}

/**
 * POST /messages/groups/{id}/invite/respond: the invitee accepts (member from now on; emits
 * `group_invite_accepted` to every accepted member, the accepter included) or declines
 * (terminal: only a new invite brings them back). 404 NOT_FOUND without a pending invite;
 * 409 CONFLICT for a member who already accepted.
 */
export function respond(ctx: Ctx, caller: Caller, convId: string, accept: boolean) {
  const conv = groupById(ctx, convId);
  if (!conv) throw notFound();
  const m = memberRow(ctx, conv.id, caller.id);
  if (!m || m.leftAt !== null || m.inviteStatus === "declined") throw notFound();
  if (m.inviteStatus === "accepted") throw new ApiError(409, "CONFLICT", "You are already a member of this group");
  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    if (!accept) {
      setMember(tx, conv.id, caller.id, { inviteStatus: "declined" });
      ctx.events.emit(tx, {
        type: "group_invite_declined",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: { conversation_id: conv.id, user: caller.username, user_id: caller.id },
      });
      return { invite_status: "declined" as const };
    }
    setMember(tx, conv.id, caller.id, { inviteStatus: "accepted", joinedAt: now, lastMessageAt: conv.lastMessageAt ?? now });
    // Same connection as the transaction: the accepter is among them.
    const accepted = participantIds(ctx, conv.id);
    ctx.events.emit(tx, {
      type: "group_invite_accepted",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { recipient_ids: accepted, conversation_id: conv.id, user: caller.username, user_id: caller.id },
    });
    return { invite_status: "accepted" as const };
  });
}

/**
 * The group `convId` when the caller holds a pending invite to it, with their member row (who
 * invited them, when): what an invitee may see before answering (the web's invitation page).
 * 404 NOT_FOUND otherwise, as respond answers.
 */
export function pendingInvite(ctx: Ctx, caller: Pick<Caller, "id">, convId: string): GroupAccess {
  const conv = groupById(ctx, convId);
  if (!conv) throw notFound();
  const member = memberRow(ctx, conv.id, caller.id);
  if (!member || member.leftAt !== null || member.inviteStatus !== "pending") throw notFound();
  return { conv, member };
}

/** The target of a member path: a user id or a username of someone currently in the group (else 404). */
function targetMember(ctx: Ctx, conv: ConversationRow, ref: string): { user: UserRow | null; member: MemberRow } {
  const user = userByRef(ctx, ref);
  const member = user ? memberRow(ctx, conv.id, user.id) : null;
  if (!member || member.leftAt !== null || member.inviteStatus === "declined") throw new ApiError(404, "NOT_FOUND", "Member not found in this group");
  return { user, member };
}

/**
 * DELETE /messages/groups/{id}/members/{user}: a member leaves (their own id) or an admin removes
 * someone (a pending invite is withdrawn the same way). Nobody but the creator can remove the
 * creator (403). When no admin is left, the longest-tenured remaining member is promoted; when
 * the creator leaves, the creator role passes to the longest-tenured remaining admin (the newly
 * promoted one when there was no other). When the last member leaves, pending invites lapse.
 * Emits `group_member_left` or `group_member_removed` to the remaining members. A managed group
 * only lets its participants leave (requireChangeable refuses removing anyone else), and nobody is
 * promoted and the creator role stays where it is when they do: the managing feature decides.
 */
export function removeMember(ctx: Ctx, caller: Caller, convId: string, ref: string) {
  const leaving = userByRef(ctx, ref)?.id === caller.id;
  const { conv, member: me } = leaving ? requireMember(ctx, caller, convId) : requireChangeable(ctx, caller, convId, "member");
  const { member: target } = targetMember(ctx, conv, ref);
  const self = target.userId === caller.id;
  if (!self) {
    if (!isAdmin(conv, me)) throw new ApiError(403, "FORBIDDEN", "Only group admins can remove other members");
    if (target.userId === conv.creatorId) throw new ApiError(403, "FORBIDDEN", "The group's creator cannot be removed by others");
  }
  return ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    setMember(tx, conv.id, target.userId, { leftAt: now, role: "member" });
    tx.delete(messageDrafts).where(and(eq(messageDrafts.userId, target.userId), eq(messageDrafts.conversationId, conv.id))).run();
    const remaining = currentMembers(ctx, conv.id);
    const accepted = acceptedOf(remaining).sort((a, b) => (a.joinedAt ?? 0) - (b.joinedAt ?? 0) || (a.userId < b.userId ? -1 : 1));
    let promoted: string | null = null;
    let creatorId = conv.creatorId;
    if (accepted.length === 0) {
      // Nobody is left to answer to: withdraw the open invites.
      for (const p of remaining) setMember(tx, conv.id, p.userId, { leftAt: now });
    } else if (target.inviteStatus === "accepted" && conv.managedBy === null) {
      let admins = accepted.filter((m) => m.role === "admin");
      if (!admins.length) {
        promoted = accepted[0].userId;
        setMember(tx, conv.id, promoted, { role: "admin" });
        admins = [accepted[0]];
      }
      if (target.userId === conv.creatorId) {
        creatorId = admins[0].userId;
        tx.update(conversations).set({ creatorId }).where(eq(conversations.id, conv.id)).run();
      }
    }
    const remainingIds = accepted.map((m) => m.userId);
    const targetUser = users.findById(ctx, target.userId);
    if (self) {
      ctx.events.emit(tx, {
        type: "group_member_left",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: { recipient_ids: remainingIds, conversation_id: conv.id, leaver: caller.username, leaver_id: caller.id, promoted_user_id: promoted, creator_id: creatorId },
      });
    } else {
      ctx.events.emit(tx, {
        type: "group_member_removed",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: {
          recipient_ids: remainingIds,
          conversation_id: conv.id,
          actor: caller.username,
          actor_id: caller.id,
          removed: targetUser?.username ?? null,
          removed_user_id: target.userId,
          was_pending: target.inviteStatus === "pending",
        },
      });
    }
    return { removed: true, left: self, promoted_user_id: promoted, creator_id: creatorId };
  });
}

/**
 * PUT /messages/groups/{id}/members/{user}/admin: an admin promotes or demotes an accepted member.
 * The creator is always an admin: others demoting them is 403 FORBIDDEN, the creator demoting
 * themself is 409 CONFLICT (transfer the creator role first). Demoting the last admin is 409.
 */
export function setAdmin(ctx: Ctx, caller: Caller, convId: string, ref: string, makeAdmin: boolean) {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  const { member: target } = targetMember(ctx, conv, ref);
  if (target.inviteStatus !== "accepted") throw new ApiError(409, "CONFLICT", "Only members who accepted their invite can be admins");
  if (!makeAdmin && target.userId === conv.creatorId) {
    if (caller.id !== conv.creatorId) throw new ApiError(403, "FORBIDDEN", "The group's creator cannot be demoted by others");
    throw new ApiError(409, "CONFLICT", "The creator is always an admin; transfer the creator role first");
  }
  if (!makeAdmin && target.role === "admin") {
    const admins = acceptedOf(currentMembers(ctx, conv.id)).filter((m) => isAdmin(conv, m));
    if (admins.length <= 1) throw new ApiError(409, "CONFLICT", "A group must keep at least one admin");
  }
  const role = makeAdmin ? ("admin" as const) : ("member" as const);
  if (target.role !== role) {
    ctx.db.transaction((tx) => {
      setMember(tx, conv.id, target.userId, { role });
      ctx.events.emit(tx, {
        type: "group_admin_changed",
        actorId: caller.id,
        subject: { type: "conversation", id: conv.id },
        payload: { conversation_id: conv.id, user_id: target.userId, is_admin: makeAdmin },
      });
    });
  }
  return { user_id: target.userId, is_admin: makeAdmin };
}

/**
 * POST /messages/groups/{id}/transfer-creator: the creator hands the role to an accepted member
 * (made admin if not already); the old creator stays an admin. 403 for anyone but the creator,
 * 404 for someone not in the group, 409 for a pending invitee, 400 for the creator themself.
 */
export function transferCreator(ctx: Ctx, caller: Caller, convId: string, ref: string) {
  const { conv } = requireChangeable(ctx, caller, convId, "member");
  if (conv.creatorId !== caller.id) throw new ApiError(403, "FORBIDDEN", "Only the group's creator can transfer the creator role");
  const { user, member: target } = targetMember(ctx, conv, ref);
  if (target.userId === caller.id) throw new ApiError(400, "INVALID_INPUT", "You are already the creator");
  if (target.inviteStatus !== "accepted") throw new ApiError(409, "CONFLICT", "The new creator must have accepted their invite");
  ctx.db.transaction((tx) => {
    tx.update(conversations).set({ creatorId: target.userId }).where(eq(conversations.id, conv.id)).run();
    setMember(tx, conv.id, target.userId, { role: "admin" });
    setMember(tx, conv.id, caller.id, { role: "admin" });
    ctx.events.emit(tx, {
      type: "group_creator_transferred",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { conversation_id: conv.id, from_user_id: caller.id, to_user_id: target.userId },
    });
  });
  return { creator_id: target.userId, creator_username: user!.username };
}

// ---------------------------------------------------------------------------------------------
// Per-member settings

export type ReceiptsShow = "on" | "off" | "clear";

export function receiptsOut(m: Pick<MemberRow, "receipts">) {
  return { show: m.receipts, override: m.receipts === null ? null : m.receipts === "on", effective: m.receipts !== "off" };
}

/** PATCH .../receipts: the caller's read-receipt override for this group (clear = account default, on). */
export function setReceipts(ctx: Ctx, caller: Caller, convId: string, show: ReceiptsShow) {
  const { conv } = requireMember(ctx, caller, convId);
  const receipts = show === "clear" ? null : show;
  saveSetting(ctx, conv.id, caller.id, { receipts });
  return receiptsOut({ receipts });
}

/** When a snooze of `duration` starting at `now` ends. until_morning: the next 08:00 UTC strictly after now. */
export function snoozeEnd(now: number, duration: SnoozeDuration): number {
  switch (duration) {
    case "1h":
      return now + HOUR;
    case "3h":
      return now + 3 * HOUR;
    case "1d":
      return now + DAY;
    case "1w":
      return now + 7 * DAY;
    case "until_morning": {
      const d = new Date(now);
      let at = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), MORNING_HOUR_UTC);
      if (at <= now) at += DAY;
      return at;
    }
  }
}

export function muteEnd(now: number, duration: MuteDuration): number {
  switch (duration) {
    case "1h":
      return now + HOUR;
    case "8h":
      return now + 8 * HOUR;
    case "1d":
      return now + DAY;
    case "1w":
      return now + 7 * DAY;
    case "forever":
      return MUTED_FOREVER;
  }
}

export function snoozeOut(ctx: Ctx, m: Pick<MemberRow, "snoozedUntil">, cleared = false) {
  return { snoozed_until: isSnoozed(m, ctx.clock.now()) ? iso(m.snoozedUntil) : null, cleared };
}

export function muteOut(ctx: Ctx, m: Pick<MemberRow, "mutedUntil">) {
  const muted = isMuted(m, ctx.clock.now());
  const forever = muted && m.mutedUntil === MUTED_FOREVER;
  return { muted, muted_until: muted && !forever ? iso(m.mutedUntil) : null, forever };
}

export function snooze(ctx: Ctx, caller: Caller, convId: string, duration: SnoozeDuration) {
  const { conv } = requireMember(ctx, caller, convId);
  const snoozedUntil = snoozeEnd(ctx.clock.now(), duration);
  saveSetting(ctx, conv.id, caller.id, { snoozedUntil });
  return snoozeOut(ctx, { snoozedUntil });
}

/** Idempotent; `cleared` tells whether a snooze was in force. */
export function unsnooze(ctx: Ctx, caller: Caller, convId: string) {
  const { conv, member } = requireMember(ctx, caller, convId);
  const was = isSnoozed(member, ctx.clock.now());
  if (member.snoozedUntil !== null) saveSetting(ctx, conv.id, caller.id, { snoozedUntil: null });
  return snoozeOut(ctx, { snoozedUntil: null }, was);
}

export function mute(ctx: Ctx, caller: Caller, convId: string, duration: MuteDuration) {
  const { conv } = requireMember(ctx, caller, convId);
  const mutedUntil = muteEnd(ctx.clock.now(), duration);
  saveSetting(ctx, conv.id, caller.id, { mutedUntil });
  return muteOut(ctx, { mutedUntil });
}

export function unmute(ctx: Ctx, caller: Caller, convId: string) {
  const { conv, member } = requireMember(ctx, caller, convId);
  if (member.mutedUntil !== null) saveSetting(ctx, conv.id, caller.id, { mutedUntil: null });
  return muteOut(ctx, { mutedUntil: null });
}

// ---------------------------------------------------------------------------------------------
// Pins

/** A live message of this group, else 404 NOT_FOUND. */
function groupMessage(ctx: Ctx, conv: ConversationRow, messageId: string): MessageRow {
  const m = messageById(ctx, messageId);
  if (!m || m.conversationId !== conv.id || m.deletedAt !== null) throw new ApiError(404, "NOT_FOUND", "Message not found in this group");
  return m;
}

/** POST .../messages/{msg}/pin: idempotent; a sixth live pin is 400 LIMIT_EXCEEDED. */
export function pin(ctx: Ctx, caller: Caller, convId: string, messageId: string) {
  const { conv } = requireAdmin(ctx, caller, convId);
  const msg = groupMessage(ctx, conv, messageId);
  return ctx.db.transaction((tx) => {
    const existing = tx.select().from(groupPins).where(and(eq(groupPins.conversationId, conv.id), eq(groupPins.messageId, msg.id))).get();
    if (existing) return { pinned: true, already: true };
    const live = tx
      .select({ n: count() })
      .from(groupPins)
      .innerJoin(messages, eq(messages.id, groupPins.messageId))
      .where(and(eq(groupPins.conversationId, conv.id), isNull(messages.deletedAt)))
      .get()?.n ?? 0;
    if (live >= MAX_PINS) throw new ApiError(400, "LIMIT_EXCEEDED", `A group can pin at most ${MAX_PINS} messages; unpin one first`);
    tx.insert(groupPins).values({ conversationId: conv.id, messageId: msg.id, pinnedBy: caller.id, pinnedAt: ctx.clock.now() }).run();
    ctx.events.emit(tx, { type: "group_message_pinned", actorId: caller.id, subject: { type: "message", id: msg.id }, payload: { conversation_id: conv.id, message_id: msg.id, pinned: true } });
    return { pinned: true, already: false };
  });
}

/** DELETE .../messages/{msg}/pin: idempotent (a message that is not pinned answers already: true). */
export function unpin(ctx: Ctx, caller: Caller, convId: string, messageId: string) {
  const { conv } = requireAdmin(ctx, caller, convId);
  const m = messageById(ctx, messageId);
  if (!m || m.conversationId !== conv.id) throw new ApiError(404, "NOT_FOUND", "Message not found in this group");
  return ctx.db.transaction((tx) => {
    const gone = tx.delete(groupPins).where(and(eq(groupPins.conversationId, conv.id), eq(groupPins.messageId, m.id))).returning().get();
    if (!gone) return { pinned: false, already: true };
    ctx.events.emit(tx, { type: "group_message_pinned", actorId: caller.id, subject: { type: "message", id: m.id }, payload: { conversation_id: conv.id, message_id: m.id, pinned: false } });
    return { pinned: false, already: false };
  });
}

export { isMuted, isSnoozed };
