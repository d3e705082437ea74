// Pages of a list (spec Part 1 §1.1): `limit` with a per-endpoint range and default, `offset`
// 0..100000, `page` >= 1 (offset = (page-1)*limit); page and offset together are a 400 unless
// they agree. The envelope {items, total, has_more, page?}. Services take a resolved Page;
// http/paging.ts declares the query parameters and the bare-array headers.
import { ApiError } from "./errors";

export const MAX_OFFSET = 100_000;

export interface PagingSpec {
  max: number;
  default: number;
  /** Endpoint rule where offset wins over page instead of the 400 (docs/decisions.md §2). */
  offsetWins?: boolean;
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

interface Paged<T> {
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
