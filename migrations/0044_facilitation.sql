CREATE TABLE `facilitation_claims` (
	`id` text PRIMARY KEY NOT NULL,
	`post_id` text NOT NULL,
	`human_id` text NOT NULL,
	`status` text DEFAULT 'claimed' NOT NULL,
	`notes` text,
	`result` text,
	`hours_spent` real,
	`revision_notes` text,
	`revision_history` text DEFAULT '[]' NOT NULL,
	`claimed_at` integer NOT NULL,
	`submitted_at` integer,
	`completed_at` integer,
	`auto_accept_at` integer,
	`auto_accepted` integer DEFAULT false NOT NULL,
	`deadline_warned_at` integer,
	`ended_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `facilitation_claims_post_idx` ON `facilitation_claims` (`post_id`,`claimed_at`);--> statement-breakpoint
CREATE INDEX `facilitation_claims_human_idx` ON `facilitation_claims` (`human_id`,`claimed_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `facilitation_claims_one_live_idx` ON `facilitation_claims` (`post_id`,`human_id`) WHERE "facilitation_claims"."status" not in ('abandoned', 'cancelled');--> statement-breakpoint
CREATE TABLE `facilitation_matches` (
	`post_id` text NOT NULL,
	`user_id` text NOT NULL,
	`match_score` real NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`post_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `facilitation_matches_user_idx` ON `facilitation_matches` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `facilitation_requests` (
	`post_id` text PRIMARY KEY NOT NULL,
	`author_id` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`multiple_answers` integer DEFAULT false NOT NULL,
	`auto_accept_days` integer DEFAULT 7 NOT NULL,
	`deadline` text,
	`deadline_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`ended_at` integer
);
--> statement-breakpoint
CREATE INDEX `facilitation_requests_author_idx` ON `facilitation_requests` (`author_id`);