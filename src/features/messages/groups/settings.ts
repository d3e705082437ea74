// A member's own settings for one group (spec Part 2 §4.6, §9): the read-receipt override, snooze
// (no notifications until it ends) and mute (no group_message unless addressed), each written with
// a group_settings_changed event, and how they show on the wire.
import { DAY, HOUR, iso } from "../../../core/clock";
import type { Ctx } from "../../../core/context";
import type { Caller } from "../../auth/service";
import type { MemberRow } from "../service";
import { requireMember } from "./access";
import { setMember } from "./rows";

/** `muted_until` of a group muted "forever" (9999-12-31T23:59:59.999Z); shown as null on the wire. */
export const MUTED_FOREVER = 253_402_300_799_999;
/** "until_morning" snoozes until the next 08:00 UTC (the server has no per-user time zone). */
export const MORNING_HOUR_UTC = 8;

export const SNOOZE_DURATIONS = ["1h", "3h", "until_morning", "1d", "1w"] as const;
export type SnoozeDuration = (typeof SNOOZE_DURATIONS)[number];
export const MUTE_DURATIONS = ["1h", "8h", "1d", "1w", "forever"] as const;
export type MuteDuration = (typeof MUTE_DURATIONS)[number];

export const isMuted = (m: Pick<MemberRow, "mutedUntil">, now: number) => m.mutedUntil !== null && m.mutedUntil > now;
export const isSnoozed = (m: Pick<MemberRow, "snoozedUntil">, now: number) => m.snoozedUntil !== null && m.snoozedUntil > now;

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
