// Test fixtures of the organisations feature: an organisation with one account in every role,
// the API calls the tests make, and the check that a refused request changed nothing.
import { expect } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";
import { dbState } from "../../../test/db-state";

export const ORGS = "/api/v1/orgs";

/** Every role a rule is tested against (anonymous is a null token). */
export interface Crew {
  slug: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  stranger: TestUser;
  siteAdmin: TestUser;
}

export type RoleName = "anonymous" | "stranger" | "member" | "admin" | "owner" | "siteAdmin";
export const ROLES: RoleName[] = ["anonymous", "stranger", "member", "admin", "owner", "siteAdmin"];
export const tokenOf = (c: Crew, role: RoleName): string | null => (role === "anonymous" ? null : c[role].token);

let seq = 0;

export function orgApi(h: Harness) {
  const req = (method: string, path: string, token: string | null, body?: unknown) => h.req(method, `${ORGS}${path}`, { token, body });
  return {
    req,
    create: (u: TestUser | null, body: Record<string, unknown>) => req("POST", "", u?.token ?? null, body),
    invite: (slug: string, by: TestUser, username: string, role?: string) => req("POST", `/${slug}/invitations`, by.token, role ? { username, role } : { username }),
    accept: (id: string, u: TestUser) => req("POST", `/invitations/${id}/accept`, u.token),
    /** Invites `u` and has them accept; throws unless both succeed. */
    async add(slug: string, by: TestUser, u: TestUser, role?: string) {
      const inv = await this.invite(slug, by, u.username, role);
      if (inv.status !== 200) throw new Error(`invite failed ${inv.status} ${inv.text}`);
      const acc = await this.accept(inv.body.invitation_id, u);
      if (acc.status !== 200) throw new Error(`accept failed ${acc.status} ${acc.text}`);
    },
  };
}

/** An organisation with an owner, an admin and a member, plus a stranger and a site admin. */
export async function crew(h: Harness, opts: { disclosure?: "public" | "opaque" | "none"; slug?: string } = {}): Promise<Crew> {
  const api = orgApi(h);
  const owner = await h.user({ karma: 50 });
  const slug = opts.slug ?? `org-${++seq}-${Math.random().toString(36).slice(2, 7)}`;
  const created = await api.create(owner, { slug, name: `Org ${seq}` });
  if (created.status !== 201) throw new Error(`create failed ${created.status} ${created.text}`);
  const admin = await h.user();
  const member = await h.user();
  await api.add(slug, owner, admin, "admin");
  await api.add(slug, owner, member);
  if (opts.disclosure && opts.disclosure !== "opaque") await api.req("PUT", `/${slug}/disclosure`, owner.token, { mode: opts.disclosure });
  return { slug, owner, admin, member, stranger: await h.user(), siteAdmin: await h.user({ admin: true }) };
}

export { dbState };

/** The notifications of `u`, newest first. */
export async function notificationsOf(h: Harness, u: TestUser) {
  return (await h.req("GET", "/api/v1/notifications", { token: u.token })).body as { kind: string; message: string; meta: Record<string, unknown> }[];
}
