// Who may read and write which wiki (spec Part 3 §4.14; docs/decisions.md §84, §85). A wiki is
// the site wiki (no colony) or one colony's. Reading follows the colony's readability and its
// wiki_edit_policy (`off`: the wiki does not exist); writing adds the colony's state (archived,
// lockdown, a ban) and the policy. Site admins act as moderators of every wiki.
import type { Ctx } from "../../core/context";
import { ApiError, forbidden, notFound } from "../../core/errors";
import type { Caller } from "../auth/caller";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { isEditor } from "./editors";

/** The wiki a request names: a colony's, or null for the site wiki. */
export type Wiki = ColonyRow | null;

/**
 * The wiki named by `colonyRef` (a colony name or id; omitted or blank: the site wiki). An
 * unknown colony, one the caller may not read and one whose wiki is off are all 404 NOT_FOUND.
 */
export function resolveWiki(ctx: Ctx, caller: colonies.Actor | null, colonyRef: string | null | undefined): Wiki {
  const ref = colonyRef?.trim();
  if (!ref) return null;
  const colony = colonies.getReadableColony(ctx, caller, ref);
  if (colonies.settingsOf(colony).wiki_edit_policy === "off") throw notFound("Colony not found");
  return colony;
}

/** Whether a colony's wiki is switched off (search leaves its pages out). */
export const wikiOff = (colony: ColonyRow) => colonies.settingsOf(colony).wiki_edit_policy === "off";

/** Moderators of a wiki: site admins for the site wiki; for a colony's, its moderators (and site admins). */
export function moderatesWiki(ctx: Ctx, caller: Caller, wiki: Wiki): boolean {
  return wiki ? colonies.canModerate(ctx, wiki, caller) : caller.isAdmin;
}

/** 403 FORBIDDEN unless the caller moderates the wiki. */
export function requireWikiModerator(ctx: Ctx, caller: Caller, wiki: Wiki): void {
  if (moderatesWiki(ctx, caller, wiki)) return;
  throw forbidden(wiki ? "Only this colony's moderators can do this" : "Only site admins can do this");
}

/**
 * The write gate of a colony's wiki (create, edit, revert, an author's delete), in order:
 * archived (403, everyone), then moderators and site admins pass; a colony ban, lockdown (403),
 * then the colony's wiki_edit_policy (docs/decisions.md §84). The site wiki takes writes from
 * every account.
 */
export function assertCanWrite(ctx: Ctx, caller: Caller, wiki: Wiki): void {
  if (!wiki) return;
  if (wiki.archivedAt !== null) throw forbidden("This colony is archived: its wiki is read-only");
  if (colonies.canModerate(ctx, wiki, caller)) return;
  if (colonies.activeBan(ctx, wiki.id, caller.id)) throw forbidden("You are banned from this colony");
  const settings = colonies.settingsOf(wiki);
  if (settings.lockdown) throw forbidden("This colony is in lockdown: only its moderators can edit its wiki");
  const member = colonies.membershipOf(ctx, wiki.id, caller.id);
  switch (settings.wiki_edit_policy) {
    case "anyone":
      colonies.assertCanParticipate(ctx, wiki, caller);
      return;
    case "members":
      requireMember(member, "Only members of this colony can edit its wiki: join it first");
      return;
    case "karma_or_editors": {
      if (isEditor(ctx, wiki.id, caller.id)) return;
      requireMember(member, "Only members of this colony and its approved wiki editors can edit its wiki");
      const floor = settings.min_karma_to_edit_wiki;
      if (caller.karma < floor) throw new ApiError(403, "KARMA_TOO_LOW", `Editing this colony's wiki needs ${floor} karma (you have ${caller.karma}), or a place on its wiki editor list`);
      return;
    }
    case "editors":
      if (isEditor(ctx, wiki.id, caller.id)) return;
      throw forbidden("Only this colony's approved wiki editors can edit its wiki");
    case "moderators":
    case "off":
      throw forbidden("Only this colony's moderators can edit its wiki");
  }
}

function requireMember(member: colonies.Membership | null, message: string): void {
  if (!member) throw forbidden(message);
  if (!member.approved) throw forbidden("Your membership of this colony is awaiting moderator approval");
}
