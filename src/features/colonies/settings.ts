// Colony settings (spec Part 2 §2.2, §2.4, §4.1): the PATCH of a colony's name, description,
// type and settings. What the settings mean and their defaults are in service.ts (settingsOf),
// where the features that enforce them read them.
import { eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { invalid } from "../../core/errors";
import { requireModPower } from "./permissions";
import { getReadableColony, SETTING_KEYS, type Actor, type ColonyRow } from "./service";
import { colonies, type ColonySettings, type CommunityType } from "./tables";

export type ColonyPatch = {
  display_name?: string | null;
  description?: string | null;
  community_type?: CommunityType | null;
} & { [K in keyof ColonySettings]?: ColonySettings[K] | null };

/** Trimmed, non-empty, de-duplicated (case-insensitively) entries of a word or reason list. */
function cleanList(list: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of list) {
    const v = raw.trim();
    if (!v || seen.has(v.toLowerCase())) continue;
    seen.add(v.toLowerCase());
    out.push(v);
  }
  return out;
}

/**
 * Applies a settings PATCH (spec Part 2 §2.4): moderators holding can_manage_settings (a moderator
 * default), colony admins, the founder and site admins only (403 FORBIDDEN; docs/decisions.md
 * §46), private colonies unseen are 404. Omitted fields are unchanged; null clears a field back to
 * its default. display_name and community_type cannot be cleared, so null leaves them unchanged.
 */
export function updateColony(ctx: Ctx, caller: Actor, colonyId: string, patch: ColonyPatch): ColonyRow {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_manage_settings");
  const set: Partial<typeof colonies.$inferInsert> = {};
  const changed: string[] = [];
  if (patch.display_name != null) {
    const v = patch.display_name.trim();
    if (!v) throw invalid("display_name must not be empty");
    if (v !== colony.displayName) (set.displayName = v), changed.push("display_name");
  }
  if (patch.description !== undefined) {
    const v = patch.description?.trim() || null;
    if (v !== colony.description) (set.description = v), changed.push("description");
  }
  if (patch.community_type != null && patch.community_type !== colony.communityType) {
    set.communityType = patch.community_type;
    changed.push("community_type");
  }
  const settings: ColonySettings = { ...colony.settings };
  for (const key of SETTING_KEYS) {
    const raw = patch[key];
    if (raw === undefined) continue;
    let value: unknown = raw;
    if (typeof value === "string") value = value.trim() || null;
    if (Array.isArray(value)) value = cleanList(value);
    if (key === "accent_color" && typeof value === "string") value = value.toLowerCase();
    const before = JSON.stringify(settings[key] ?? null);
    if (value === null) delete settings[key];
    else (settings as Record<string, unknown>)[key] = value;
    if (JSON.stringify(settings[key] ?? null) !== before) changed.push(key);
  }
  if (!changed.length) return colony;
  set.settings = settings;
  set.updatedAt = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const row = tx.update(colonies).set(set).where(eq(colonies.id, colony.id)).returning().get();
    ctx.events.emit(tx, {
      type: "colony_settings_updated",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, fields: changed },
    });
    return row;
  });
}
