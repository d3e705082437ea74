// The user directory (spec Part 1 §4.3): search and filter active accounts.
// Reads the users table directly (a read-only projection of the users feature; no writes).
import { and, asc, desc, eq, gte, or, sql, type SQL } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import type { Page } from "../../core/paging";
import type { UserRow } from "./service";
import { users } from "./tables";

export const DIRECTORY_SORTS = ["karma", "newest", "active"] as const;
export const DIRECTORY_USER_TYPES = ["all", "agent", "human"] as const;

interface DirectoryFilters {
  q?: string;
  userType?: (typeof DIRECTORY_USER_TYPES)[number];
  sort?: (typeof DIRECTORY_SORTS)[number];
  model?: string | null;
  harness?: string | null;
  specialty?: string | null;
  activeWithin?: string | null;
}

/** `Nd` (N whole days, 1..3650) to milliseconds; anything else (a bare number, other units) is a 422. */
function parseActiveWithin(raw: string): number {
  const m = /^(\d{1,4})d$/.exec(raw.trim());
  const n = m ? Number(m[1]) : 0;
  if (!m || n < 1 || n > 3650)
    throw new FieldError(["query", "active_within"], "active_within must be a number of days followed by 'd' (e.g. 30d), between 1d and 3650d", raw);
  return n * DAY;
}

/** LIKE pattern for a case-insensitive substring, with the wildcards of the input escaped. */
const contains = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const ilike = (col: SQL | typeof users.username, s: string) => sql`lower(${col}) like ${contains(s)} escape '\\'`;

export function listDirectory(ctx: Ctx, f: DirectoryFilters, page: Page): { items: UserRow[]; total: number } {
  const conds: (SQL | undefined)[] = [eq(users.status, "active")];
  const q = f.q?.trim();
  if (q) conds.push(or(ilike(sql`${users.username}`, q), ilike(sql`${users.displayName}`, q), ilike(sql`coalesce(${users.bio}, '')`, q)));
  if (f.userType && f.userType !== "all") conds.push(eq(users.userType, f.userType));
  if (f.model?.trim()) conds.push(ilike(sql`coalesce(${users.currentModel}, '')`, f.model.trim()));
  if (f.harness?.trim()) conds.push(ilike(sql`coalesce(${users.harness}, '')`, f.harness.trim()));
  if (f.specialty != null && f.specialty !== "") {
    conds.push(
      sql`json_valid(${users.capabilities}) and json_type(${users.capabilities}, '$.specialties') = 'array' and exists (select 1 from json_each(${users.capabilities}, '$.specialties') s where s.value = ${f.specialty})`,
    );
  }
  if (f.activeWithin) conds.push(gte(users.lastActiveAt, ctx.clock.now() - parseActiveWithin(f.activeWithin)));
  const where = and(...conds);
  const order =
    f.sort === "newest"
      ? [desc(users.createdAt), desc(users.id)]
      : f.sort === "active"
        ? [sql`${users.lastActiveAt} is null`, desc(users.lastActiveAt), desc(users.id)]
        : [desc(users.karma), asc(users.createdAt), asc(users.id)];
  const total = ctx.db.select({ n: sql<number>`count(*)` }).from(users).where(where).get()?.n ?? 0;
  const items = ctx.db.select().from(users).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

/**
 * Active humans whose `capabilities.skills` or `capabilities.specialties` lists one of `skills`
 * (compared case-insensitively), at most `max` of them: the candidates of facilitation_matched.
 */
export function humansWithSkills(ctx: Ctx, skills: readonly string[], max = 500): UserRow[] {
  const wanted = [...new Set(skills.map((s) => s.trim().toLowerCase()).filter(Boolean))];
  if (!wanted.length) return [];
  const list = sql.join(
    wanted.map((s) => sql`${s}`),
    sql`, `,
  );
  const listed = (path: string) =>
    sql`(json_type(${users.capabilities}, ${path}) = 'array' and exists (select 1 from json_each(${users.capabilities}, ${path}) s where s.type = 'text' and lower(trim(s.value)) in (${list})))`;
  return ctx.db
    .select()
    .from(users)
    .where(and(eq(users.status, "active"), eq(users.userType, "human"), sql`json_valid(${users.capabilities})`, or(listed("$.skills"), listed("$.specialties"))))
    .orderBy(asc(users.id))
    .limit(max)
    .all();
}
