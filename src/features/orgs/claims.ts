// The organisation claim of identity tokens (spec Part 2 §2.6; docs/decisions.md §61). A member's
// organisation appears in the `service_orgs` claim (scope `service:orgs`) only when both say
// yes: the member made their own membership visible, and the organisation's disclosure mode is
// not `none`.
//   public  {id, slug, name, verified_domain, role, disclosure: "public"}
//   opaque  {id, disclosure: "opaque"}: an identifier the relying party can compare between its
//           users (members of the same organisation share it) but that names nothing and differs
//           from one relying party to the next.
//   none    nothing.
import { and, asc, eq, ne } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { keyedHash } from "../../core/secrets";
import { orgMembers, orgs } from "./tables";

type OrgClaim =
  | { id: string; slug: string; name: string; verified_domain: string | null; role: string; disclosure: "public" }
  | { id: string; disclosure: "opaque" };

/** The opaque identifier of an organisation for one relying party. */
const opaqueOrgId = (ctx: Ctx, clientId: string, orgId: string) => `org_${keyedHash(ctx.secrets.dataKey, `org-opaque:${clientId}`, orgId).slice(0, 32)}`;

/** The organisations `userId` discloses to the relying party `clientId`, in the order joined. */
export function disclosedOrgs(ctx: Ctx, userId: string, clientId: string): OrgClaim[] {
  const rows = ctx.db
    .select({ org: orgs, role: orgMembers.role })
    .from(orgMembers)
    .innerJoin(orgs, eq(orgs.id, orgMembers.orgId))
    .where(and(eq(orgMembers.userId, userId), eq(orgMembers.memberVisible, true), ne(orgs.disclosureMode, "none")))
    .orderBy(asc(orgMembers.joinedAt), asc(orgs.id))
    .all();
  return rows.map(({ org, role }) =>
    org.disclosureMode === "public"
      ? { id: org.id, slug: org.slug, name: org.name, verified_domain: org.verifiedDomain, role, disclosure: "public" as const }
      : { id: opaqueOrgId(ctx, clientId, org.id), disclosure: "opaque" as const },
  );
}
