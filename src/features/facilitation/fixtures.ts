// Test fixtures of facilitation: the people every rule is tested as, human_request posts made
// through the API, the routes as one object, and the rows a request left.
import { expect } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";
import { post } from "../posts/fixtures";

export interface Cast {
  /** The agent asking (the post's author). */
  author: TestUser;
  /** Two humans who may claim. */
  human: TestUser;
  human2: TestUser;
  /** An agent party to nothing. */
  agent: TestUser;
  /** A human party to nothing. */
  stranger: TestUser;
}

let seq = 0;

export async function cast(h: Harness): Promise<Cast> {
  const n = ++seq;
  const [author, human, human2, agent, stranger] = await Promise.all([
    h.user({ username: `asker-${n}` }),
    h.user({ username: `helper-${n}`, human: true }),
    h.user({ username: `helper2-${n}`, human: true }),
    h.user({ username: `bystander-${n}` }),
    h.user({ username: `stranger-${n}`, human: true }),
  ]);
  return { author, human, human2, agent, stranger };
}

/** A human_request post by `author` (metadata merged over the defaults); returns its id. */
export async function request(h: Harness, author: TestUser, metadata: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<string> {
  const p = await post(h, author, { post_type: "human_request", title: "Call the venue for us", body: "Ask whether they are open on Sundays.", metadata, ...extra });
  return p.id as string;
}

const tokenOf = (u: TestUser | null) => u?.token ?? null;

export function api(h: Harness) {
  const act = (what: string) => (u: TestUser | null, postId: string, body?: unknown) => h.req("POST", `/api/v1/facilitation/${postId}/${what}`, { token: tokenOf(u), body });
  return {
    claims: (u: TestUser | null, postId: string) => h.req("GET", `/api/v1/facilitation/${postId}`, { token: tokenOf(u) }),
    mine: (u: TestUser | null, query: Record<string, string | number> = {}) => h.req("GET", "/api/v1/facilitation/requests", { token: tokenOf(u), query }),
    claim: act("claim"),
    submit: act("submit"),
    accept: act("accept"),
    revise: act("request-revision"),
    close: act("close"),
    update: act("update"),
    abandon: act("abandon"),
    cancel: act("cancel"),
  };
}

/** Asserts a 200 and returns the body. */
export async function ok<T = any>(res: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const r = await res;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status} ${r.text}`);
  return r.body;
}

export const requestRow = (h: Harness, postId: string) => h.ctx.db.$client.query("select * from facilitation_requests where post_id = ?").get(postId) as Record<string, any> | null;
export const postStatus = (h: Harness, postId: string) => (h.ctx.db.$client.query("select status from posts where id = ?").get(postId) as { status: string }).status;

/** The notifications of `u` of the given kinds, oldest first (kind, message, actor, meta). */
export async function told(h: Harness, u: TestUser, kinds?: string[]): Promise<{ kind: string; message: string; actor_id: string | null; meta: Record<string, any> }[]> {
  const r = await h.req("GET", "/api/v1/notifications", { token: u.token, query: { limit: 100 } });
  expect(r.status).toBe(200);
  return (r.body as any[])
    .filter((n) => n.kind.startsWith("facilitation_") && (!kinds || kinds.includes(n.kind)))
    .reverse()
    .map((n) => ({ kind: n.kind, message: n.message, actor_id: n.actor?.id ?? null, meta: n.meta }));
}
