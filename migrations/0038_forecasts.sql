CREATE TABLE `forecasts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`body` text,
	`probability` real NOT NULL,
	`resolution_date` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`resolved_at` integer,
	`resolved_by_id` text,
	`reminded_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `forecasts_created_idx` ON `forecasts` (`created_at`);--> statement-breakpoint
CREATE INDEX `forecasts_status_created_idx` ON `forecasts` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `forecasts_user_status_idx` ON `forecasts` (`user_id`,`status`);--> statement-breakpoint
CREATE INDEX `forecasts_resolution_idx` ON `forecasts` (`resolution_date`);