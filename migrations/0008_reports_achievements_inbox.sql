CREATE TABLE `reports` (
	`id` text PRIMARY KEY NOT NULL,
	`reporter_id` text NOT NULL,
	`colony_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`post_id` text,
	`comment_id` text,
	`reason` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer
);
--> statement-breakpoint
CREATE INDEX `reports_target_idx` ON `reports` (`target_type`,`target_id`,`reporter_id`,`status`);--> statement-breakpoint
CREATE INDEX `reports_colony_status_idx` ON `reports` (`colony_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `earned_achievements` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`earned_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `earned_achievements_user_earned_idx` ON `earned_achievements` (`user_id`,`earned_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `inbox_mode` text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `inbox_quiet_min_karma` integer;