// The list and lookup queries of organisations and the handle namespace use an index
// (ARCHITECTURE.md rule 9): the statements the services run, checked with EXPLAIN QUERY PLAN.
import { expect, test } from "bun:test";
import { setup } from "../../../test/harness";

const h = setup();
const plan = (sql: string, ...params: string[]) =>
  (h.ctx.db.$client.query(`explain query plan ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(" | ");

test.each([
  ["a handle's holder", "select * from handles where handle = ?", "sqlite_autoindex_handles"],
  ["an owner's handles (release, confirm)", "delete from handles where kind = 'user' and owner_id = ?", "handles_owner_idx"],
  ["an organisation by slug", "select * from orgs where slug = ?", "orgs_slug_unique"],
  ["the holder of a verified domain", "select id from orgs where verified_domain = ?", "orgs_verified_domain_idx"],
  ["the caller's organisations", "select * from org_members m join orgs o on o.id = m.org_id where m.user_id = ? order by m.joined_at, o.slug", "org_members_user_idx"],
  ["an organisation's roster", "select * from org_members where org_id = ? order by joined_at, user_id", "org_members_org_idx"],
  ["an organisation's owners", "select count(*) from org_members where org_id = ? and role = 'owner'", "org_members"],
  ["the caller's pending invitations", "select * from org_invitations where invitee_id = ? and status = 'pending' and expires_at > 0 order by created_at desc", "org_invitations_invitee_idx"],
  ["an organisation's pending invitations", "select * from org_invitations where org_id = ? and status = 'pending' and expires_at > 0 order by created_at desc", "org_invitations_org_idx"],
  ["an organisation's challenges", "select * from org_domain_challenges where org_id = ? order by created_at desc limit 20", "org_domain_challenges_org_idx"],
  ["an organisation's resources", "select * from org_resources where org_id = ? order by created_at", "org_resources_org_idx"],
  ["a resource by identifier", "select * from org_resources where identifier = ?", "org_resources_identifier_unique"],
  ["an organisation's grants", "select * from org_delegation_grants where org_id = ? order by created_at desc", "org_delegation_grants_org_idx"],
  ["the grants for a resource", "select * from org_delegation_grants where org_id = ? and resource = ? and is_active = 1", "org_delegation_grants_resource_idx"],
  ["the members an organisation discloses", "select * from org_members m join orgs o on o.id = m.org_id where m.user_id = ? and m.member_visible = 1 and o.disclosure_mode <> 'none' order by m.joined_at", "org_members_user_idx"],
])("%s", (_what, sql, index) => {
  const p = plan(sql, ...Array(sql.split("?").length - 1).fill("x"));
  expect(p).toContain(index);
  expect(p).not.toMatch(/\bSCAN\b/);
});
