// The notifications page (/notifications, docs/decisions.md §157): a page of the signed-in
// person's notifications, newest first, with marking one or all of them read.
import * as notifications from "../../features/notifications/service";
import { notificationsOut } from "../../features/notifications/views";
import { sync } from "../layout";
import { notificationHref, NotificationsPage } from "../pages/part";
import { ById, FORM, PAGE } from "../route-options";
import { isSignedIn, page, toSignIn, type SignedInWeb } from "../session";
import { visitOf } from "../visit";
import { action, uuidOr404 } from "./actions";
import type { WebArea } from "../web-app";

const NOTIFICATIONS_PER_PAGE = 30;

export const notificationsRoutes: WebArea = (ctx, app) => {
  function notificationsPage(web: SignedInWeb, request: Request, pageNo: number) {
    const userId = web.viewer.user.id;
    const { items, total } = notifications.listNotifications(ctx, userId, {}, { limit: NOTIFICATIONS_PER_PAGE, offset: (pageNo - 1) * NOTIFICATIONS_PER_PAGE });
    const shown = notificationsOut(ctx, items).map((n, i) => ({ id: n.id, message: n.message, isRead: n.is_read, createdAt: items[i].createdAt, href: notificationHref(n) }));
    const unread = notifications.unreadCount(ctx, userId);
    return page(web, sync(NotificationsPage({ visit: visitOf(ctx, request), items: shown, unread, page: pageNo, hasMore: pageNo * NOTIFICATIONS_PER_PAGE < total })));
  }

  app
    .get(
      "/notifications",
      ({ web, request, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/notifications");
        const n = Number(query.page ?? 1);
        const pageNo = Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 1;
        return notificationsPage(web, request, pageNo);
      },
      PAGE,
    )
    .post(
      "/notifications/read-all",
      ({ web, request }) =>
        action(ctx, web, request, "/notifications", [], (w) => {
          notifications.markAllRead(ctx, w.viewer.user.id);
          return "/notifications";
        }),
      FORM,
    )
    .post(
      "/notifications/:id/read",
      ({ web, request, params }) =>
        action(ctx, web, request, "/notifications", [], (w) => {
          notifications.markRead(ctx, w.viewer.user.id, uuidOr404(params.id));
          return "/notifications";
        }),
      { params: ById, ...FORM },
    );
};
