// Account rows to wire JSON (the reference service's UserOut).
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { trustLevelFor } from "../../core/limits";
import { findManyByIds, type UserRow } from "./service";

export const avatarUrl = (ctx: Ctx, username: string) => `${ctx.config.publicUrl}/u/${encodeURIComponent(username)}/avatar`;

function trustLevelOut(karma: number) {
  const t = trustLevelFor(karma);
  return { name: t.name, min_karma: Math.max(0, t.min_karma), icon: t.icon, rate_multiplier: t.rate_multiplier };
}

/**
 * The reference service's coarse activity bucket: `recently` (within 7 days), `this_month`
 * (within 30 days) or `earlier`; null when the account never made an authenticated request.
 * Deliberately not a timestamp, so the exact last-seen time is not disclosed.
 */
function lastActiveBucket(ctx: Ctx, at: number | null): "recently" | "this_month" | "earlier" | null {
  if (at == null) return null;
  const age = ctx.clock.now() - at;
  if (age <= 7 * DAY) return "recently";
  if (age <= 30 * DAY) return "this_month";
  return "earlier";
}

/**
 * The public profile. `self` adds what only the owner sees (docs/decisions.md §7: lightning_address is
 * returned on the caller's own profile).
 */
export function userOut(ctx: Ctx, u: UserRow, opts: { self?: boolean } = {}) {
  return {
    id: u.id,
    username: u.username,
    display_name: u.displayName,
    user_type: u.userType,
    bio: u.bio,
    lightning_address: opts.self ? u.lightningAddress : null,
    nostr_pubkey: u.nostrPubkey,
    npub: u.nostrPubkey ? npubOf(u.nostrPubkey) : null,
    evm_address: u.evmAddress,
    capabilities: u.capabilities,
    social_links: u.socialLinks,
    karma: u.karma,
    trust_level: trustLevelOut(u.karma),
    team_role: u.isAdmin ? "admin" : null,
    current_model: u.currentModel,
    harness: u.harness,
    last_active: lastActiveBucket(ctx, u.lastActiveAt),
    created_at: iso(u.createdAt),
    avatar_url: avatarUrl(ctx, u.username),
  };
}

/** The short form of a person (id, username, display name) several Part 3 answers carry. */
export interface PersonRef {
  id: string;
  username: string;
  display_name: string;
}

/**
 * The short forms of the given accounts in one query: `ref(id)` answers for any of them, with
 * "[deleted]" names for an account that no longer exists.
 */
export function personRefs(ctx: Ctx, ids: readonly string[]): (id: string) => PersonRef {
  const users = findManyByIds(ctx, ids);
  return (id) => {
    const u = users.get(id);
    return { id, username: u?.username ?? "[deleted]", display_name: u?.displayName ?? "[deleted]" };
  };
}

/**
 * The author shown for a tombstone or for an account that no longer exists (hard-deleted
 * accounts leave no row): the UserOut shape with nothing that identifies anyone.
 */
export function deletedUserOut(ctx: Ctx, id: string) {
  return {
    id,
    username: "[deleted]",
    display_name: "[deleted]",
    user_type: "agent" as const,
    bio: null,
    lightning_address: null,
    nostr_pubkey: null,
    npub: null,
    evm_address: null,
    capabilities: null,
    social_links: null,
    karma: 0,
    trust_level: null,
    team_role: null,
    current_model: null,
    harness: null,
    last_active: null,
    created_at: iso(0),
    avatar_url: `${ctx.config.publicUrl}/u/deleted/avatar`,
  };
}

/**
 * The UserOut of each of the given accounts in one query: `out(id)` answers for any of them (the
 * viewer's own with what only they see), an account that no longer exists as deletedUserOut.
 */
export function userOuts(ctx: Ctx, ids: readonly string[], viewerId: string | null = null): (id: string) => ReturnType<typeof userOut> | ReturnType<typeof deletedUserOut> {
  const found = findManyByIds(ctx, ids);
  return (id) => {
    const u = found.get(id);
    return u ? userOut(ctx, u, { self: u.id === viewerId }) : deletedUserOut(ctx, id);
  };
}

// NIP-19 npub: bech32 (BIP-173) of the 32-byte public key with human-readable part "npub".
const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i];
  }
  return chk >>> 0;
}

export function npubOf(hex: string): string {
  const bytes = Buffer.from(hex, "hex");
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const hrp = "npub";
  const expanded = [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];
  const mod = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return hrp + "1" + [...words, ...checksum].map((w) => CHARSET[w]).join("");
}
