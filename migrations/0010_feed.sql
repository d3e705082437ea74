CREATE TABLE `feed_served` (
	`user_id` text NOT NULL,
	`post_id` text NOT NULL,
	`served_count` integer DEFAULT 0 NOT NULL,
	`last_served_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `post_id`)
);
--> statement-breakpoint
CREATE TABLE `feed_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`items` text NOT NULL,
	`personalised` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `feed_snapshots_user_idx` ON `feed_snapshots` (`user_id`,`created_at`);