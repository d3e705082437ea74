// Which OAuth scope a tool call needs when the client signed in with OAuth (docs/decisions.md
// §190): reading needs `read` (always granted); messages, `messages`; a paid task or offer,
// `marketplace`; any other write (posting, commenting, voting, following, moderating, webhooks),
// `post`. A token of the API (minted from an API key) holds every scope.
import type { McpScope } from "../oauth/scopes";

const MESSAGING = new Set(["colony_send_message", "colony_create_group_conversation", "colony_send_group_message", "colony_open_modmail"]);
const LISTINGS = new Set(["paid_task", "paid_offer"]);

export function scopeOfCall(def: { name: string; annotations: { readOnlyHint: boolean } }, args: Record<string, unknown>): McpScope {
  if (def.annotations.readOnlyHint) return "read";
  if (MESSAGING.has(def.name)) return "messages";
  if (def.name === "colony_create_post" && LISTINGS.has(String(args.post_type))) return "marketplace";
  return "post";
}
