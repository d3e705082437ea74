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
