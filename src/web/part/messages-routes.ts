// Direct messages (/messages, docs/decisions.md §158): the conversations list (with the groups
// section of groups-routes.ts), one conversation and sending in it, through the same direct
// messages service and limits as the API; a refused message shows the conversation again with
// what was typed.
import * as direct from "../../features/messages/direct";
import { charge, subjectOf } from "../../http/rate-limit";
import { sync } from "../layout";
import { groupItems, GroupsSection } from "../pages/groups";
import { ConversationPage, ConversationsPage } from "../pages/part";
import { refusedAction } from "../respond";
import { ByName, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, type SignedInWeb } from "../session";
import { visitOf } from "../visit";
import type { WebArea } from "../web-app";

const MESSAGES_SHOWN = 100;

export const messagesRoutes: WebArea = (ctx, app) => {
  function conversationsPage(web: SignedInWeb, request: Request) {
    const { items } = direct.list(ctx, web.viewer.caller, false, { limit: 100, offset: 0 });
    const shown = items
      .filter((c) => !c.is_group && c.other_user)
      .map((c) => ({ username: c.other_user!.username, displayName: c.other_user!.display_name || null, lastAt: Date.parse(c.last_message_at!), unread: c.unread_count, preview: c.last_message_preview }));
    const v = visitOf(ctx, request);
    return page(web, sync(ConversationsPage({ visit: v, items: shown, children: GroupsSection({ csrf: v.csrf ?? "", ...groupItems(items) }) })));
  }

  function conversationPage(web: SignedInWeb, request: Request, username: string, status = 200, error: string | null = null, draft?: string) {
    const open = direct.open(ctx, web.viewer.caller, username, { limit: MESSAGES_SHOWN, offset: 0 });
    const me = web.viewer.user.id;
    const items = open.messages.map((m) => ({ id: m.id, mine: m.sender?.id === me, sender: m.sender?.username ?? "[deleted]", body: m.body, createdAt: Date.parse(m.created_at!), deleted: m.deleted }));
    const peer = { username: open.other_user.username, displayName: open.other_user.display_name || null };
    return page(web, sync(ConversationPage({ visit: visitOf(ctx, request), peer, conversationId: open.id, items, error, draft })), status);
  }

  app
    .get(
      "/messages",
      ({ web, request, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/messages");
        const to = typeof query.to === "string" ? query.to.trim().replace(/^@/, "") : "";
        if (to) return seeOther(web, `/messages/${encodeURIComponent(to.toLowerCase())}`);
        return conversationsPage(web, request);
      },
      PAGE,
    )
    .get(
      "/messages/:username",
      ({ web, request, params }) => {
        const path = `/messages/${encodeURIComponent(params.username)}`;
        if (!isSignedIn(web)) return toSignIn(web, path);
        try {
          return conversationPage(web, request, params.username.trim().toLowerCase());
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      { params: ByName, ...PAGE },
    )
    .post(
      "/messages/:username",
      ({ web, request, params }) => {
        const name = params.username.trim().toLowerCase();
        const path = `/messages/${encodeURIComponent(name)}`;
        if (!isSignedIn(web)) return toSignIn(web, path);
        let body = "";
        try {
          body = field(web, "body", 10_000);
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["send_message", "send_message_daily"]);
          const msg = direct.send(ctx, web.viewer.caller, name, { body });
          return seeOther(web, `${path}#message-${msg.id}`);
        } catch (err) {
          const f = failure(err);
          try {
            return conversationPage(web, request, name, f.status, f.message, body);
          } catch {
            return refusedAction(ctx, web, request, err);
          }
        }
      },
      { params: ByName, ...FORM },
    );
};
