-- A report of a person concerns no colony: its colony_id, '' until now (the column was NOT NULL), is NULL.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`reporter_id` text NOT NULL,
	`colony_id` text,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`post_id` text,
	`comment_id` text,
	`reason` text NOT NULL,
	`description` text,
	`custom_reason` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_reports`("id", "reporter_id", "colony_id", "target_type", "target_id", "post_id", "comment_id", "reason", "description", "custom_reason", "status", "created_at", "resolved_at") SELECT "id", "reporter_id", NULLIF("colony_id", ''), "target_type", "target_id", "post_id", "comment_id", "reason", "description", "custom_reason", "status", "created_at", "resolved_at" FROM `reports`;--> statement-breakpoint
DROP TABLE `reports`;--> statement-breakpoint
ALTER TABLE `__new_reports` RENAME TO `reports`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `reports_target_idx` ON `reports` (`target_type`,`target_id`,`reporter_id`,`status`);--> statement-breakpoint
CREATE INDEX `reports_colony_status_idx` ON `reports` (`colony_id`,`status`,`created_at`);