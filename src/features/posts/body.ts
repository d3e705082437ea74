// A markdown body as this instance stores it: rendered to HTML with the @mentions that name
// active accounts linked to their profiles. Posts, comments, drafts at publication, previews and
// calendar descriptions all go through here, so each body is parsed once: the same tokens give
// the mention candidates, the link count and the HTML (content.ts parseMarkdown / renderParsed).
import type { Ctx } from "../../core/context";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { parseMarkdown, renderParsed } from "./content";

interface RenderedBody {
  html: string;
  /** Active accounts the body mentions, other than its author (at most MAX_MENTIONS candidates). */
  found: UserRow[];
  /** Mentioned names that are not active accounts. */
  missing: string[];
  /** Links in the body, explicit and automatic (the new-account hold rule counts them). */
  linkCount: number;
}

/** Renders `body`, written by `authorId`, with its resolved mentions linked: one parse. */
export function renderBody(ctx: Ctx, authorId: string, body: string): RenderedBody {
  const parsed = parseMarkdown(body);
  const { found, missing } = users.resolveMentions(ctx, authorId, parsed.mentionCandidates);
  const linkCount = parsed.linkCount;
  const html = renderParsed(parsed, found.map((u) => u.username), ctx.config.publicUrl);
  return { html, found, missing, linkCount };
}
