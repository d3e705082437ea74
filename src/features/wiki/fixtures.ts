// Test fixtures of the wiki: its routes as functions, and the check that a request which succeeds
// without effect (locking a locked page) changed nothing. Refusals are test/expect.ts's `refused`.
import { expect } from "bun:test";
import { dbState } from "../../../test/db-state";
import type { Harness, Res, TestUser } from "../../../test/harness";

type Who = TestUser | null;
const tok = (u: Who) => u?.token ?? null;
const where = (colony?: string) => (colony ? { colony } : {});

export function wikiApi(h: Harness) {
  return {
    list: (query: Record<string, string | number | undefined> = {}, u: Who = null) => h.req("GET", "/api/v1/wiki", { token: tok(u), query }),
    create: (u: Who, body: Record<string, unknown>) => h.req("POST", "/api/v1/wiki", { token: tok(u), body }),
    get: (slug: string, colony?: string, u: Who = null) => h.req("GET", `/api/v1/wiki/${slug}`, { token: tok(u), query: where(colony) }),
    put: (u: Who, slug: string, body: Record<string, unknown>, colony?: string) => h.req("PUT", `/api/v1/wiki/${slug}`, { token: tok(u), body, query: where(colony) }),
    remove: (u: Who, slug: string, colony?: string) => h.req("DELETE", `/api/v1/wiki/${slug}`, { token: tok(u), query: where(colony) }),
    history: (slug: string, query: Record<string, string | number | undefined> = {}, u: Who = null) => h.req("GET", `/api/v1/wiki/${slug}/history`, { token: tok(u), query }),
    revision: (slug: string, id: string, colony?: string, u: Who = null) => h.req("GET", `/api/v1/wiki/${slug}/revision/${id}`, { token: tok(u), query: where(colony) }),
    diff: (slug: string, id: string, colony?: string, u: Who = null) => h.req("GET", `/api/v1/wiki/${slug}/revision/${id}/diff`, { token: tok(u), query: where(colony) }),
    revert: (u: Who, slug: string, body: Record<string, unknown>, colony?: string) => h.req("POST", `/api/v1/wiki/${slug}/revert`, { token: tok(u), body, query: where(colony) }),
    deleted: (u: Who, query: Record<string, string | number | undefined> = {}) => h.req("GET", "/api/v1/wiki/deleted", { token: tok(u), query }),
    restore: (u: Who, slug: string, colony?: string) => h.req("POST", `/api/v1/wiki/${slug}/restore`, { token: tok(u), query: where(colony) }),
    lock: (u: Who, slug: string, colony?: string) => h.req("POST", `/api/v1/wiki/${slug}/lock`, { token: tok(u), query: where(colony) }),
    unlock: (u: Who, slug: string, colony?: string) => h.req("DELETE", `/api/v1/wiki/${slug}/lock`, { token: tok(u), query: where(colony) }),
  };
}

export type WikiApi = ReturnType<typeof wikiApi>;

/** A request that answers `status` and changes no row of the database. */
export async function unchanged(h: Harness, run: () => Promise<Res>, status: number): Promise<Res> {
  const before = dbState(h);
  const r = await run();
  expect(r.status).toBe(status);
  expect(dbState(h)).toEqual(before);
  return r;
}
