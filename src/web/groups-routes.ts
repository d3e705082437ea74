// Group conversations on the web (docs/decisions.md §166-§169): a new group (/groups/new), a
// group's page (/groups/<id>) with its forms (send, invite, remove, title and description,
// leave) and the answer to an invitation. Every form calls the group-messages service of
// POST /api/v1/messages/groups… as the signed-in person, charged to the same rate limits; it
// answers 303 back to the group, and a refusal shows the group's page again with the service's
// message and status (a group the person is not in is the 404 page).
import { Elysia, t } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { isUuid } from "../core/ids";
import { groupDetail } from "../features/messages/groups/detail";
import { isAdmin } from "../features/messages/groups/access";
import { create as createGroup } from "../features/messages/groups/create";
import { invite, pendingInvite, respond } from "../features/messages/groups/invites";
import { listMembers, removeMember } from "../features/messages/groups/membership";
import { updateMetadata } from "../features/messages/groups/metadata";
import { send as sendToGroup } from "../features/messages/groups/send";
import { CONVERSATION_PAGING } from "../features/messages/schemas";
import * as users from "../features/users/service";
import { charge, rateLimitPlugin, subjectOf } from "../http/rate-limit";
import { refusedPage } from "./account-routes";
import { sync } from "./layout";
import { GroupPage, groupHref, InvitationPage, NewGroupPage, type GroupPageState, type GroupView, type NewGroupValues } from "./pages/groups";
import { refusedAction } from "./respond";
import { failure, field, isSignedIn, page, seeOther, toSignIn, webSession, type SignedInWeb, type Web } from "./session";
import { visitOf } from "./visit";

const PAGE = { detail: { hide: true } };
const FORM = { parse: "none" as const, detail: { hide: true } };
const ById = t.Object({ id: t.String() });
const ByMember = t.Object({ id: t.String(), username: t.String() });
/** Messages on a page of a group: the API's default page. */
export const GROUP_MESSAGES_PER_PAGE = CONVERSATION_PAGING.default;
/** The deepest page a group's page goes back to (10,000 messages at 50 a page). */
const MAX_PAGE = 200;

/** The fixed texts a group's page shows after a form (`?notice=`), never text from the address. */
const NOTICES: Record<string, string> = {
  created: "The group is made: the people you named are invited, and join when they accept.",
  joined: "You joined the group.",
  saved: "The title and description are saved.",
  invited: "The invitation is sent.",
  "already-member": "They are already in the group, or already invited.",
  removed: "They are no longer in the group.",
};

/** The usernames of a members field: separated by commas, spaces or lines; a leading @ is dropped. */
export const memberNames = (raw: string) =>
  raw
    .split(/[\s,;]+/)
    .map((s) => s.replace(/^@/, ""))
    .filter(Boolean);

/** A page number of `?page=`: 1 when absent, else a whole number from 1 to MAX_PAGE (400 otherwise). */
function pageParam(raw: unknown): number {
  if (raw === undefined) return 1;
  const n = typeof raw === "string" && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw new ApiError(400, "INVALID_INPUT", `page must be a whole number from 1 to ${MAX_PAGE}`);
  return n;
}

const groupId = (raw: string) => {
  if (!isUuid(raw)) throw new ApiError(404, "NOT_FOUND", "Group not found");
  return raw.toLowerCase();
};

export const groupsWebRoutes = (ctx: Ctx) => {
  const signIn = toSignIn;
  const visit = (request: Request) => visitOf(ctx, request);

  const refused = (web: Web, request: Request, err: unknown) => refusedAction(ctx, web, request, err);

  /** The group as its member sees it (reading it marks it read, as the API's GET does); 404 for anyone else. */
  function viewOf(w: SignedInWeb, id: string, pageNo: number): GroupView {
    const d = groupDetail(ctx, w.viewer.caller, id, { limit: GROUP_MESSAGES_PER_PAGE, offset: (pageNo - 1) * GROUP_MESSAGES_PER_PAGE });
    if (pageNo > 1 && d.messages.length === 0) throw new ApiError(400, "INVALID_INPUT", "There are not that many pages of messages");
    const { conv, members } = listMembers(ctx, w.viewer.caller, id);
    const me = w.viewer.user.id;
    const item = (m: (typeof d.messages)[number]) => ({
      id: m.id,
      mine: m.sender.id === me,
      sender: m.sender.username ?? "[deleted]",
      body: m.body,
      createdAt: Date.parse(m.created_at!),
      deleted: m.deleted,
    });
    return {
      id: d.id,
      title: d.title ?? "",
      description: d.description,
      isAdmin: d.is_admin,
      memberCount: d.member_count,
      pendingCount: d.pending_count,
      messages: d.messages.map(item),
      pinned: d.pinned.map(item),
      members: members.map(({ user, member }) => ({
        username: user.username,
        displayName: user.displayName,
        isAdmin: isAdmin(conv, member),
        isCreator: conv.creatorId === user.id,
        pending: member.inviteStatus === "pending",
        isMe: user.id === me,
      })),
      page: pageNo,
      hasOlder: d.pagination.has_more,
    };
  }

  function groupPage(w: SignedInWeb, request: Request, id: string, pageNo = 1, state: GroupPageState = {}, status = 200, headers: Record<string, string> = {}): Response {
    return page(w, sync(GroupPage({ visit: visit(request), group: viewOf(w, id, pageNo), state })), status, headers);
  }

  /** A pending invitee's page at the group's address: the title, who invited them, accept or decline. */
  function invitationPage(w: SignedInWeb, request: Request, id: string): Response {
    const { conv, member } = pendingInvite(ctx, w.viewer.caller, id);
    const inviter = member.invitedBy ? users.findById(ctx, member.invitedBy) : null;
    const html = InvitationPage({ visit: visit(request), id: conv.id, title: conv.title ?? "", inviter: users.isActive(inviter) ? inviter.username : null, invitedAt: member.invitedAt });
    return page(w, sync(html));
  }

  /**
   * A form on a group's page: signed in, charged to `limits`, then `act`, answered 303 to where it
   * says. A refusal shows the group's page again with the service's message and status and what
   * `state` kept of the form; a group the person is not in is the 404 page.
   */
  function groupForm(web: Web, request: Request, rawId: string, limits: string[], act: (w: SignedInWeb, id: string) => string, state: (w: SignedInWeb) => GroupPageState = () => ({})): Response {
    const back = `/groups/${encodeURIComponent(rawId)}`;
    if (!isSignedIn(web)) return signIn(web, back);
    let id = "";
    try {
      id = groupId(rawId);
      if (limits.length) charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), limits);
      return seeOther(web, act(web, id));
    } catch (err) {
      const f = failure(err);
      if (!id) return refused(web, request, err);
      try {
        return groupPage(web, request, id, 1, { ...state(web), error: f.message }, f.status, f.headers);
      } catch (again) {
        return refused(web, request, again);
      }
    }
  }

  function newGroupForm(web: SignedInWeb, request: Request, values: NewGroupValues, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    return page(web, sync(NewGroupPage({ visit: visit(request), values, error })), status, headers);
  }

  /** A form field, or "" when the form's refusal is being re-rendered and the field was the culprit. */
  const typed = (w: Web, name: string) => w.form.getAll(name)[0] ?? "";

  return (
    new Elysia()
      .use(rateLimitPlugin(ctx))
      .use(webSession(ctx, refusedPage))
      // The list of groups is a section of /messages.
      .get("/groups", ({ web }) => (isSignedIn(web) ? seeOther(web, "/messages#groups") : signIn(web, "/messages")), PAGE)
      .get(
        "/groups/new",
        ({ web, request }) => {
          if (!isSignedIn(web)) return signIn(web, "/groups/new");
          return newGroupForm(web, request, { title: "", members: "", description: "" });
        },
        PAGE,
      )
      .post(
        "/groups/new",
        ({ web, request }) => {
          if (!isSignedIn(web)) return signIn(web, "/groups/new");
          let values: NewGroupValues = { title: typed(web, "title"), members: typed(web, "members"), description: typed(web, "description") };
          try {
            values = { title: field(web, "title", 100), members: field(web, "members", 3000), description: field(web, "description", 500) };
            charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["group_create"]);
            const created = createGroup(ctx, web.viewer.caller, { title: values.title, members: memberNames(values.members), description: values.description });
            return seeOther(web, `${groupHref(created.conv.id)}?notice=created`);
          } catch (err) {
            const f = failure(err);
            return newGroupForm(web, request, values, f.status, f.message, f.headers);
          }
        },
        FORM,
      )
      .get(
        "/groups/:id",
        ({ web, request, params, query }) => {
          if (!isSignedIn(web)) return signIn(web, `/groups/${encodeURIComponent(params.id)}`);
          try {
            const id = groupId(params.id);
            const pageNo = pageParam(query.page);
            try {
              return groupPage(web, request, id, pageNo, { notice: typeof query.notice === "string" && Object.hasOwn(NOTICES, query.notice) ? NOTICES[query.notice] : null });
            } catch (err) {
              // Not a member: a pending invitee sees the invitation; anyone else the 404 page.
              if (err instanceof ApiError && err.status === 404) return invitationPage(web, request, id);
              throw err;
            }
          } catch (err) {
            return refused(web, request, err);
          }
        },
        { params: ById, ...PAGE },
      )
      .post(
        "/groups/:id/send",
        ({ web, request, params }) =>
          groupForm(
            web,
            request,
            params.id,
            ["send_message", "send_message_daily"],
            (w, id) => {
              const msg = sendToGroup(ctx, w.viewer.caller, id, { body: field(w, "body", 10_000) });
              return `${groupHref(id)}#message-${msg.id}`;
            },
            (w) => ({ draft: typed(w, "body") }),
          ),
        { params: ById, ...FORM },
      )
      .post(
        "/groups/:id/respond",
        ({ web, request, params }) => {
          if (!isSignedIn(web)) return signIn(web, `/groups/${encodeURIComponent(params.id)}`);
          try {
            const id = groupId(params.id);
            const answer = field(web, "answer", 10);
            if (answer !== "accept" && answer !== "decline") throw new ApiError(400, "INVALID_INPUT", "Answer the invitation with accept or decline");
            try {
              respond(ctx, web.viewer.caller, id, answer === "accept");
            } catch (err) {
              // Accepting an invitation already accepted: what the person asked for is true.
              if (!(answer === "accept" && err instanceof ApiError && err.status === 409)) throw err;
            }
            return seeOther(web, answer === "accept" ? `${groupHref(id)}?notice=joined` : "/messages#groups");
          } catch (err) {
            return refused(web, request, err);
          }
        },
        { params: ById, ...FORM },
      )
      .post(
        "/groups/:id/leave",
        ({ web, request, params }) =>
          groupForm(web, request, params.id, [], (w, id) => {
            removeMember(ctx, w.viewer.caller, id, w.viewer.user.id);
            return "/messages#groups";
          }),
        { params: ById, ...FORM },
      )
      .post(
        "/groups/:id/edit",
        ({ web, request, params }) =>
          groupForm(
            web,
            request,
            params.id,
            [],
            (w, id) => {
              updateMetadata(ctx, w.viewer.caller, id, { title: field(w, "title", 100), description: field(w, "description", 500) });
              return `${groupHref(id)}?notice=saved#settings-h`;
            },
            (w) => ({ settings: { title: typed(w, "title"), description: typed(w, "description") } }),
          ),
        { params: ById, ...FORM },
      )
      .post(
        "/groups/:id/members",
        ({ web, request, params }) =>
          groupForm(
            web,
            request,
            params.id,
            ["group_invite"],
            (w, id) => {
              const out = invite(ctx, w.viewer.caller, id, field(w, "username", 64).trim().replace(/^@/, ""));
              return `${groupHref(id)}?notice=${out.added ? "invited" : "already-member"}#members-h`;
            },
            (w) => ({ invitee: typed(w, "username") }),
          ),
        { params: ById, ...FORM },
      )
      .post(
        "/groups/:id/members/:username/remove",
        ({ web, request, params }) =>
          groupForm(web, request, params.id, [], (w, id) => {
            removeMember(ctx, w.viewer.caller, id, params.username.trim());
            return `${groupHref(id)}?notice=removed#members-h`;
          }),
        { params: ByMember, ...FORM },
      )
  );
};
