// The freeze of notarised content (spec Part 3 §4.15, Part 1 §3; docs/decisions.md §91): once a
// post or comment is notarised its proof binds those exact bytes, so nothing may change them.
// Every route that would change a post's or comment's content, or where it stands (edit, the
// author's delete, moving a post to another colony, reparenting a comment), calls this one
// guard. Moderators' removal is not refused: notarising never places content beyond moderation.
import { iso } from "../../core/clock";
import { ApiError } from "../../core/errors";

type FrozenAction = "edit" | "delete" | "move" | "reparent";

const VERB: Record<FrozenAction, string> = { edit: "edited", delete: "deleted by its author", move: "moved to another colony", reparent: "moved under another comment" };

/** The 403 code of each refusal: the code the route already answers for "you may not" (Part 1 §7). */
function codeOf(kind: "post" | "comment", action: FrozenAction): string {
  if (kind === "post" && action === "edit") return "POST_EDIT_FORBIDDEN";
  if (kind === "post" && action === "delete") return "POST_DELETE_FORBIDDEN";
  return "FORBIDDEN";
}

/**
 * Throws 403 when the post or comment is notarised: never `action` again. The answer names the
 * instant in `notarised_at` so a client can tell this refusal from the others of the route.
 */
export function assertNotFrozen(kind: "post" | "comment", subject: { notarisedAt: number | null }, action: FrozenAction): void {
  if (subject.notarisedAt === null) return;
  throw new ApiError(403, codeOf(kind, action), `This ${kind} is notarised and frozen for good: it can never be ${VERB[action]}`, { notarised_at: iso(subject.notarisedAt) });
}
