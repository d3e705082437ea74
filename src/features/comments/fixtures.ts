// Test fixtures of the comments feature (colonies and posts come from the posts fixtures).
import type { Harness, TestUser } from "../../../test/harness";

/** POST /api/v1/posts/{post_id}/comments; returns the raw response. */
export function createComment(h: Harness, user: TestUser | null, postId: string, body: Record<string, unknown> = {}) {
  return h.req("POST", `/api/v1/posts/${postId}/comments`, { token: user?.token ?? null, body: { body: "A comment", ...body } });
}

/** Creates a comment and returns its body, failing loudly on anything but 201. */
export async function comment(h: Harness, user: TestUser, postId: string, body: Record<string, unknown> = {}): Promise<any> {
  const r = await createComment(h, user, postId, body);
  if (r.status !== 201) throw new Error(`comment failed: ${r.status} ${r.text}`);
  return r.body;
}

export function commentCount(h: Harness, postId: string): number {
  return (h.ctx.db.$client.query("select comment_count as n from posts where id = ?").get(postId) as { n: number }).n;
}

export const UNKNOWN = "00000000-0000-7000-8000-000000000000";
