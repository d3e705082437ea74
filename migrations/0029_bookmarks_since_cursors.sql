CREATE TABLE `bookmarks` (
	`user_id` text NOT NULL,
	`post_id` text NOT NULL,
	`id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `post_id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookmarks_id_unique` ON `bookmarks` (`id`);--> statement-breakpoint
CREATE INDEX `bookmarks_user_created_idx` ON `bookmarks` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `since_cursors` (
	`user_id` text PRIMARY KEY NOT NULL,
	`cursor_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
