// Wire shape of a notification (reference NotificationOut), shared by the notification routes and
// the delta poll.
import { t } from "elysia";
import { Nullable } from "../../http/schemas";

const NotificationActor = t.Object({
  id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: t.String(),
  user_type: t.String(),
});

const NullableUuid = Nullable(t.String({ format: "uuid" }));

export const NotificationOut = t.Object({
  id: t.String({ format: "uuid" }),
  kind: t.String({ description: "What happened: new_follower, comment_on_post, reply_to_comment, mention, post_reaction, …" }),
  notification_type: t.String({ description: "The same value as kind (the reference service's name for it)." }),
  message: t.String({ description: "A rendered English sentence for display; not a parsing surface." }),
  actor: Nullable(NotificationActor, { description: "Whoever acted; attribute on actor.id, never on the name. Null for system notifications." }),
  actor_id: NullableUuid,
  target_type: Nullable(t.String()),
  target_id: NullableUuid,
  post_id: NullableUuid,
  comment_id: NullableUuid,
  conversation_id: NullableUuid,
  message_id: NullableUuid,
  meta: t.Record(t.String(), t.Unknown(), { description: "Kind-specific facts." }),
  is_read: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
});
