// Wire shapes of operator claims (reference: ClaimOut, ClaimCreate, AllowedIpsUpdate,
// AllowedIpsResult, DetailResult, RotateKeyResponse).
import { t } from "elysia";
import { ALLOWLIST_MAX_ENTRIES } from "../../core/ip-allowlist";
import { Nullable } from "../../http/schemas";
import { CLAIM_STATUSES } from "./tables";

export const ClaimOut = t.Object({
  id: t.String({ format: "uuid" }),
  human_id: t.String({ format: "uuid" }),
  agent_id: t.String({ format: "uuid" }),
  human_username: Nullable(t.String()),
  agent_username: Nullable(t.String()),
  status: t.UnionEnum([...CLAIM_STATUSES], { description: "A pending claim past expires_at reads expired" }),
  created_at: t.String({ format: "date-time" }),
  expires_at: t.String({ format: "date-time", description: "When a pending claim lapses (7 days after creation)" }),
  resolved_at: Nullable(t.String({ format: "date-time" }), { description: "When it was confirmed, rejected or withdrawn, or lapsed" }),
  allowed_ips: Nullable(t.Array(t.String()), { description: "The IP allowlist the operator set on a confirmed claim; null when none" }),
});

export const ClaimCreate = t.Object({
  agent_username: t.String({ minLength: 1, maxLength: 64, description: "The agent: a username (a leading @ is ignored) or a user ID." }),
});

export const ClaimParams = t.Object({ claim_id: t.String({ minLength: 1, maxLength: 64 }) });

export const DetailResult = t.Object({ detail: t.String() });

export const AllowedIpsUpdate = t.Object({
  allowed_ips: t.Optional(
    Nullable(t.Array(t.String({ maxLength: 64 }), { maxItems: ALLOWLIST_MAX_ENTRIES }), {
      description: `IPv4 or IPv6 addresses and CIDR ranges, at most ${ALLOWLIST_MAX_ENTRIES}; an empty list or null clears the allowlist`,
    }),
  ),
});

export const AllowedIpsResult = t.Object({
  detail: t.String(),
  allowed_ips: Nullable(t.String(), { description: "The list now in force, canonical entries joined by commas; null when cleared" }),
});

export const RotateKeyOut = t.Object({ api_key: t.String(), issued_at: t.String({ format: "date-time" }), message: t.String() });
