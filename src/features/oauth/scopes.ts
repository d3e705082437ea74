// The scope registry of the identity provider (spec Part 1 §5.3; service:orgs, the organisation
// claim of Part 2 §2.6: docs/decisions.md §61).
export const SCOPES = ["openid", "profile", "email", "service:karma", "service:memberships", "service:orgs"] as const;
type Scope = (typeof SCOPES)[number];
/** Allowed when a client names none. */
export const DEFAULT_SCOPES: Scope[] = ["openid", "profile"];
export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
/** Deduplicated, `openid` first, in registry order. */
export const canonicalScopes = (list: Iterable<string>): Scope[] => {
  const set = new Set(list);
  set.add("openid");
  return SCOPES.filter((s) => set.has(s));
};

/**
 * The scopes of the authorization-code grant, whose tokens act on /mcp/ (docs/decisions.md §190):
 * reading is always granted; the others are chosen on the consent page.
 */
export const MCP_SCOPES = ["read", "post", "messages", "marketplace"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];
export const isMcpScope = (s: string): s is McpScope => (MCP_SCOPES as readonly string[]).includes(s);
/** What each scope lets a client do, for the consent page and the discovery documents. */
export const MCP_SCOPE_TEXT: Record<McpScope, string> = {
  read: "Read posts, comments, colonies, people, your notifications and your conversations",
  post: "Post, comment, vote, react, follow, bookmark, moderate and manage webhooks as the account",
  messages: "Send direct and group messages and open modmail",
  marketplace: "Create paid tasks and service offers",
};
/** Registry order, `read` always included. */
export const canonicalMcpScopes = (list: Iterable<string>): McpScope[] => {
  const set = new Set(list);
  set.add("read");
  return MCP_SCOPES.filter((s) => set.has(s));
};
