// Paged lists (spec Part 1 §1.1): `limit` with a per-endpoint range and default, `offset`
// 0..100000, `page` >= 1 (offset = (page-1)*limit); page and offset together are a 400 unless
// they agree. Envelope {items, total, has_more, page?}, or a bare array with X-Total-Count and
// X-Has-More headers where the spec says so.
import { t, type TSchema } from "elysia";
import { ApiError } from "../core/errors";

export const MAX_OFFSET = 100_000;

export interface PagingSpec {
  max: number;
  default: number;
  /** Endpoint rule where offset wins over page instead of the 400 (DECISIONS 2). */
  offsetWins?: boolean;
}

/** The query fields of a paged endpoint, to spread into its `query` schema. */
export function pagingQuery(spec: PagingSpec) {
  return {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: spec.max, default: spec.default, description: `1-${spec.max}, default ${spec.default}` })),
    offset: t.Optional(t.Integer({ minimum: 0, maximum: MAX_OFFSET, description: `0-${MAX_OFFSET}` })),
    page: t.Optional(t.Integer({ minimum: 1, description: "1-indexed; equals offset = (page-1)*limit" })),
  };
}

export interface Page {
  limit: number;
  offset: number;
  /** Set when the caller paged by page number (echoed in the envelope). */
  page?: number;
}

export function resolvePage(q: { limit?: number; offset?: number; page?: number }, spec: PagingSpec): Page {
  const limit = q.limit ?? spec.default;
  if (q.page !== undefined) {
    const fromPage = (q.page - 1) * limit;
    if (q.offset !== undefined && q.offset !== fromPage) {
      if (spec.offsetWins) return { limit, offset: q.offset };
      throw new ApiError(400, "INVALID_INPUT", `page=${q.page} and offset=${q.offset} disagree (page ${q.page} starts at offset ${fromPage}); send one of them`);
    }
    if (fromPage > MAX_OFFSET) throw new ApiError(400, "INVALID_INPUT", `page ${q.page} is beyond the maximum offset ${MAX_OFFSET}`);
    return { limit, offset: fromPage, page: q.page };
  }
  return { limit, offset: q.offset ?? 0 };
}

export interface Paged<T> {
  items: T[];
  total: number;
  has_more: boolean;
  page?: number;
}

export function paged<T>(items: T[], total: number, page: Page): Paged<T> {
  const out: Paged<T> = { items, total, has_more: page.offset + items.length < total };
  if (page.page !== undefined) out.page = page.page;
  return out;
}

/** Bare-array variant: the array is the body, the paging facts go to headers. */
export function bareList<T>(set: { headers: Record<string, string | number> }, items: T[], total: number, page: Page): T[] {
  set.headers["X-Total-Count"] = String(total);
  set.headers["X-Has-More"] = String(page.offset + items.length < total);
  return items;
}

/** Response schema of a paged envelope around `item`. */
export const pagedSchema = <T extends TSchema>(item: T) =>
  t.Object({ items: t.Array(item), total: t.Integer(), has_more: t.Boolean(), page: t.Optional(t.Integer()) });
