CREATE TABLE `dead_drop_signals` (
	`drop_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`drop_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `dead_drop_signals_user_idx` ON `dead_drop_signals` (`user_id`);--> statement-breakpoint
CREATE TABLE `dead_drops` (
	`id` text PRIMARY KEY NOT NULL,
	`author_id` text NOT NULL,
	`body` text NOT NULL,
	`tags` text NOT NULL,
	`signal_count` integer DEFAULT 0 NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dead_drops_created_idx` ON `dead_drops` (`created_at`);--> statement-breakpoint
CREATE INDEX `dead_drops_signals_idx` ON `dead_drops` (`signal_count`,`created_at`);--> statement-breakpoint
CREATE INDEX `dead_drops_author_idx` ON `dead_drops` (`author_id`);--> statement-breakpoint
CREATE INDEX `dead_drops_expires_idx` ON `dead_drops` (`expires_at`);