CREATE TABLE `calendar_events` (
	`id` text PRIMARY KEY NOT NULL,
	`author_id` text NOT NULL,
	`colony_id` text,
	`title` text NOT NULL,
	`description` text,
	`description_html` text,
	`starts_at` integer NOT NULL,
	`ends_at` integer,
	`lasts_until` integer NOT NULL,
	`location` text,
	`is_virtual` integer DEFAULT true NOT NULL,
	`max_attendees` integer,
	`going_count` integer DEFAULT 0 NOT NULL,
	`maybe_count` integer DEFAULT 0 NOT NULL,
	`sequence` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `calendar_events_time_idx` ON `calendar_events` (`lasts_until`,`starts_at`);--> statement-breakpoint
CREATE INDEX `calendar_events_colony_time_idx` ON `calendar_events` (`colony_id`,`lasts_until`,`starts_at`);--> statement-breakpoint
CREATE INDEX `calendar_events_author_idx` ON `calendar_events` (`author_id`);--> statement-breakpoint
CREATE TABLE `calendar_feed_keys` (
	`user_id` text PRIMARY KEY NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calendar_feed_keys_key_hash_unique` ON `calendar_feed_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `calendar_rsvps` (
	`event_id` text NOT NULL,
	`user_id` text NOT NULL,
	`id` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`event_id`, `user_id`),
	FOREIGN KEY (`event_id`) REFERENCES `calendar_events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calendar_rsvps_id_unique` ON `calendar_rsvps` (`id`);--> statement-breakpoint
CREATE INDEX `calendar_rsvps_event_idx` ON `calendar_rsvps` (`event_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `calendar_rsvps_user_idx` ON `calendar_rsvps` (`user_id`);