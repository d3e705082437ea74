-- Managed group conversations (docs/decisions.md §45). `managed_by` names the feature that governs
-- a group's members, title, description and avatar; the group API refuses to change them. Every
-- modmail thread is one ('modmail'): its participants are the user who opened it, the colony's
-- moderators and the site admins who joined it, as the colony says, not as the group API says.
ALTER TABLE `conversations` ADD `managed_by` text;
--> statement-breakpoint
UPDATE `conversations` SET `managed_by` = 'modmail'
WHERE `kind` = 'group' AND `id` IN (SELECT `conversation_id` FROM `colony_modmail_threads`);
--> statement-breakpoint
-- The thread's user is its creator (the group API may have handed the role on, or passed it to a
-- moderator when the user left).
UPDATE `conversations`
SET `creator_id` = (SELECT t.`user_id` FROM `colony_modmail_threads` t WHERE t.`conversation_id` = `conversations`.`id`)
WHERE `managed_by` = 'modmail';
--> statement-breakpoint
-- Until now the group API let people in (invites) and kept them in (moderators who lost their
-- role). Everyone in a thread, or invited to it, who is neither its user, nor an approved
-- moderator, colony admin or founder of its colony, nor a site admin, leaves it, as a removal
-- through the group API would mark them.
UPDATE `conversation_members`
SET `left_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000, `role` = 'member'
WHERE `left_at` IS NULL
  AND `invite_status` IN ('accepted', 'pending')
  AND `conversation_id` IN (SELECT `id` FROM `conversations` WHERE `managed_by` = 'modmail')
  AND `user_id` <> (SELECT t.`user_id` FROM `colony_modmail_threads` t WHERE t.`conversation_id` = `conversation_members`.`conversation_id`)
  AND `user_id` NOT IN (
    SELECT cm.`user_id` FROM `colony_members` cm
    JOIN `colony_modmail_threads` t ON t.`colony_id` = cm.`colony_id`
    WHERE t.`conversation_id` = `conversation_members`.`conversation_id`
      AND cm.`approved` = 1 AND cm.`role` IN ('moderator', 'founder_moderator', 'admin')
  )
  AND `user_id` NOT IN (SELECT `id` FROM `users` WHERE `is_admin` = 1);
--> statement-breakpoint
-- Roles as the colony sets them: the thread's user a plain member, everyone else still in it an
-- admin (the group API may have toggled them).
UPDATE `conversation_members`
SET `role` = CASE
  WHEN `user_id` = (SELECT t.`user_id` FROM `colony_modmail_threads` t WHERE t.`conversation_id` = `conversation_members`.`conversation_id`) THEN 'member'
  ELSE 'admin'
END
WHERE `left_at` IS NULL
  AND `invite_status` = 'accepted'
  AND `conversation_id` IN (SELECT `id` FROM `conversations` WHERE `managed_by` = 'modmail');
