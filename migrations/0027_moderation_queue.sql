CREATE TABLE `colony_mod_queue` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`source` text NOT NULL,
	`source_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`post_id` text,
	`author_id` text,
	`excerpt` text DEFAULT '' NOT NULL,
	`payload` text,
	`status` text DEFAULT 'open' NOT NULL,
	`resolution` text,
	`resolved_by` text,
	`resolved_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `colony_mod_queue_list_idx` ON `colony_mod_queue` (`colony_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `colony_mod_queue_source_idx` ON `colony_mod_queue` (`colony_id`,`status`,`source`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `colony_mod_queue_one_open_idx` ON `colony_mod_queue` (`source`,`source_id`) WHERE "colony_mod_queue"."status" = 'open';--> statement-breakpoint
CREATE INDEX `colony_mod_queue_target_idx` ON `colony_mod_queue` (`target_id`,`status`);--> statement-breakpoint
CREATE INDEX `colony_mod_queue_post_idx` ON `colony_mod_queue` (`post_id`,`status`);--> statement-breakpoint
ALTER TABLE `reports` ADD `custom_reason` text;
--> statement-breakpoint
ALTER TABLE `posts` ADD `locked_at` integer;
--> statement-breakpoint
INSERT INTO `colony_mod_queue` (`id`, `colony_id`, `source`, `source_id`, `target_type`, `target_id`, `post_id`, `author_id`, `excerpt`, `payload`, `status`, `created_at`)
SELECT lower(hex(randomblob(16))), p.`colony_id`, 'pending_post', p.`id`, 'post', p.`id`, p.`id`, p.`author_id`, substr(p.`title` || ' — ' || p.`body`, 1, 280),
  json_object('reason', p.`held_explanation`, 'held_by', 'colony_settings'), 'open', p.`created_at`
FROM `posts` p
WHERE p.`held` = 1 AND p.`deleted_at` IS NULL AND p.`state` = 'published' AND p.`colony_id` IN (SELECT `id` FROM `colonies`);
--> statement-breakpoint
INSERT INTO `colony_mod_queue` (`id`, `colony_id`, `source`, `source_id`, `target_type`, `target_id`, `post_id`, `author_id`, `excerpt`, `payload`, `status`, `created_at`)
SELECT lower(hex(randomblob(16))), c.`colony_id`, 'automod_removed_comment', c.`id`, 'comment', c.`id`, c.`post_id`, c.`author_id`, substr(c.`body`, 1, 280),
  json_object('reason', c.`held_explanation`, 'held_by', 'colony_settings'), 'open', c.`created_at`
FROM `comments` c
WHERE c.`held` = 1 AND c.`deleted_at` IS NULL AND c.`colony_id` IN (SELECT `id` FROM `colonies`);
--> statement-breakpoint
INSERT INTO `colony_mod_queue` (`id`, `colony_id`, `source`, `source_id`, `target_type`, `target_id`, `post_id`, `author_id`, `excerpt`, `payload`, `status`, `created_at`)
SELECT lower(hex(randomblob(16))), r.`colony_id`, 'open_report', r.`id`, r.`target_type`, r.`target_id`, r.`post_id`,
  coalesce((SELECT `author_id` FROM `comments` WHERE `id` = r.`comment_id`), (SELECT `author_id` FROM `posts` WHERE `id` = r.`post_id`)),
  coalesce((SELECT substr(`body`, 1, 280) FROM `comments` WHERE `id` = r.`comment_id`), (SELECT substr(`title` || ' — ' || `body`, 1, 280) FROM `posts` WHERE `id` = r.`post_id`), ''),
  json_object('reporter_id', r.`reporter_id`, 'reason', r.`reason`, 'custom_reason', NULL, 'description', r.`description`), 'open', r.`created_at`
FROM `reports` r
WHERE r.`status` = 'pending' AND r.`target_type` IN ('post', 'comment') AND r.`colony_id` IN (SELECT `id` FROM `colonies`);
