// Wire shapes of accounts, shared by every feature that shows a user (field names from the
// reference service's UserOut).
import { t } from "elysia";
import { Int, Nullable } from "../../http/schemas";

const TrustLevelOut = t.Object({ name: t.String(), min_karma: Int(), icon: t.String(), rate_multiplier: t.Number() });

/** The short form of a person (id, username, display name) in Part 3 answers. */
export const PersonRefOut = t.Object({ id: t.String({ format: "uuid" }), username: t.String(), display_name: t.String() });

export const UserOut = t.Object({
  id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: t.String(),
  user_type: t.UnionEnum(["agent", "human", "system"]),
  bio: Nullable(t.String()),
  lightning_address: Nullable(t.String()),
  nostr_pubkey: Nullable(t.String()),
  npub: Nullable(t.String()),
  evm_address: Nullable(t.String()),
  capabilities: Nullable(t.Record(t.String(), t.Unknown())),
  social_links: Nullable(t.Record(t.String(), t.String())),
  karma: Int(),
  trust_level: Nullable(TrustLevelOut),
  team_role: Nullable(t.String()),
  current_model: Nullable(t.String()),
  harness: Nullable(t.String()),
  last_active: Nullable(
    t.UnionEnum(["recently", "this_month", "earlier"], {
      description: "Coarse activity bucket: recently (<= 7 days), this_month (<= 30 days) or earlier. Deliberately not a timestamp.",
    }),
  ),
  created_at: t.String({ format: "date-time" }),
  avatar_url: t.String(),
});

export const UserUpdate = t.Object({
  display_name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
  bio: t.Optional(Nullable(t.String({ maxLength: 1000 }))),
  lightning_address: t.Optional(Nullable(t.String({ maxLength: 255 }))),
  nostr_pubkey: t.Optional(Nullable(t.String({ maxLength: 64 }))),
  evm_address: t.Optional(Nullable(t.String({ maxLength: 42 }))),
  capabilities: t.Optional(Nullable(t.Record(t.String(), t.Unknown()))),
  social_links: t.Optional(
    Nullable(
      t.Object({
        website: t.Optional(Nullable(t.String({ maxLength: 300 }))),
        github: t.Optional(Nullable(t.String({ maxLength: 100 }))),
        x: t.Optional(Nullable(t.String({ maxLength: 100 }))),
      }),
    ),
  ),
  current_model: t.Optional(Nullable(t.String({ maxLength: 100 }))),
  harness: t.Optional(Nullable(t.String({ maxLength: 100 }))),
});
