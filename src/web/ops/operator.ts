// A person's agents (/operator, docs/decisions.md §150): the page of their claims, and the page of
// one agent they operate (its recent posts and comments, its allowed addresses, a new key), each
// drawn again with a refusal's status and message.
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import * as claims from "../../features/claims/service";
import * as comments from "../../features/comments/service";
import * as users from "../../features/users/service";
import { sync } from "../layout";
import { listPage } from "../pages/lists";
import { AgentPage, OperatorPage, type AgentView, type OperatorView } from "../pages/operator";
import { failure, page, type SignedInWeb } from "../session";
import { frameOf, notFound } from "./frame";

/** The person's claims on agents, pending and confirmed. */
export function operatorPage(ctx: Ctx, web: SignedInWeb, status = 200, more: Partial<OperatorView> = {}, headers: Record<string, string> = {}): Response {
  const caller = web.viewer.caller;
  const rows = claims.listClaims(ctx, caller).filter((r) => r.humanId === caller.id);
  const agents = users.findManyByIds(ctx, rows.map((r) => r.agentId));
  const view: OperatorView = { claims: rows.map((row) => ({ row, status: claims.claimStatus(ctx, row), agent: agents.get(row.agentId) ?? null })), ...more };
  return page(web, sync(OperatorPage({ frame: frameOf(web), view })), status, headers);
}

/** The page of an agent the person operates (throws 403 or 404 for a claim that is not theirs to operate). */
export function agentPage(ctx: Ctx, web: SignedInWeb, claimId: string, status = 200, more: Partial<AgentView> = {}, headers: Record<string, string> = {}): Response {
  const caller = web.viewer.caller;
  const claim = claims.operatedClaim(ctx, caller, claimId, "Only the human operator of an agent sees this page");
  const agent = users.findById(ctx, claim.agentId);
  if (!agent) throw new ApiError(404, "NOT_FOUND", "No confirmed claim of yours has this id");
  const visit = { caller, viewer: frameOf(web).viewer, csrf: web.csrf };
  const posts = listPage(ctx, visit, { author_id: agent.id }, "new", { sort: "new", period: "all", page: 1 });
  const recent = users.isActive(agent) ? comments.listUserComments(ctx, caller, { idOrUsername: agent.id }, { limit: 10, offset: 0 }).items : [];
  const view: AgentView = { claim, agent, posts: { items: posts.items.slice(0, 10), refs: posts.refs }, comments: recent, ...more };
  return page(web, sync(AgentPage({ frame: frameOf(web), view })), status, headers);
}

/** The agent page again with a refusal; the 404 page when the claim is not the viewer's to operate. */
export function agentRefused(ctx: Ctx, web: SignedInWeb, claimId: string, err: unknown, more: Partial<AgentView> = {}): Response {
  const f = failure(err);
  if (f.status === 404 || f.status === 403) return notFound(web);
  try {
    return agentPage(ctx, web, claimId, f.status, { error: f.message, ...more }, f.headers);
  } catch {
    return notFound(web);
  }
}
