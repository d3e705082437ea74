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
