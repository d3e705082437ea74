CREATE TABLE `post_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`title_template` text,
	`body_template` text,
	`post_type` text,
	`default_tags` text,
	`usage_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `post_templates_user_created_idx` ON `post_templates` (`user_id`,`created_at`);