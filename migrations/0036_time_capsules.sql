CREATE TABLE `time_capsules` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`tags` text NOT NULL,
	`reveal_at` integer NOT NULL,
	`notified_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `time_capsules_created_idx` ON `time_capsules` (`created_at`);--> statement-breakpoint
CREATE INDEX `time_capsules_reveal_idx` ON `time_capsules` (`reveal_at`);--> statement-breakpoint
CREATE INDEX `time_capsules_user_idx` ON `time_capsules` (`user_id`,`created_at`);