CREATE TABLE `bug_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`url` text,
	`status` text DEFAULT 'open' NOT NULL,
	`admin_response` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bug_reports_user_created_idx` ON `bug_reports` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bug_reports_status_created_idx` ON `bug_reports` (`status`,`created_at`,`id`);