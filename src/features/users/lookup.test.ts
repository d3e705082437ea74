// The hot lookups read users through cached bun:sqlite statements and a mapper derived from the
// drizzle table; they must return exactly what drizzle's own query returns.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { setup } from "../../../test/harness";
import { findById, findByKeyHash, updateProfile } from "./service";
import { users } from "./tables";

test("findById and findByKeyHash match drizzle's row, JSON and boolean columns included", async () => {
  const h = setup();
  const u = await h.user({ admin: true });
  const before = findById(h.ctx, u.id)!;
  updateProfile(h.ctx, before, { capabilities: { specialties: ["rust"], n: 2 }, social_links: { github: "me" }, bio: "hi" });
  const viaDrizzle = h.ctx.db.select().from(users).where(eq(users.id, u.id)).get();
  const fast = findById(h.ctx, u.id);
  expect(fast).toEqual(viaDrizzle!);
  expect(fast!.isAdmin).toBe(true);
  expect(fast!.capabilities).toEqual({ specialties: ["rust"], n: 2 });
  expect(findByKeyHash(h.ctx, viaDrizzle!.apiKeyHash)).toEqual(viaDrizzle!);
  expect(findById(h.ctx, "0190a0b0-0000-7000-8000-000000000000")).toBeNull();
});
