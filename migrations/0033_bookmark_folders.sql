CREATE TABLE `bookmark_folders` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bookmark_folders_user_idx` ON `bookmark_folders` (`user_id`,`position`);--> statement-breakpoint
ALTER TABLE `bookmarks` ADD `folder_id` text;--> statement-breakpoint
CREATE INDEX `bookmarks_folder_idx` ON `bookmarks` (`folder_id`);