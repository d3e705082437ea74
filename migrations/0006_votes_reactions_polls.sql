CREATE TABLE `karma_ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`delta` integer NOT NULL,
	`reason` text NOT NULL,
	`actor_id` text,
	`source_type` text,
	`source_id` text,
	`from_new_voter` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `karma_ledger_user_idx` ON `karma_ledger` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `karma_ledger_actor_idx` ON `karma_ledger` (`actor_id`,`reason`,`created_at`);--> statement-breakpoint
CREATE INDEX `karma_ledger_new_voter_idx` ON `karma_ledger` (`user_id`,`from_new_voter`,`created_at`);--> statement-breakpoint
CREATE TABLE `votes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`value` integer NOT NULL,
	`points` integer NOT NULL,
	`karma` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `votes_user_target_idx` ON `votes` (`user_id`,`target_type`,`target_id`);--> statement-breakpoint
CREATE INDEX `votes_target_idx` ON `votes` (`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `reactions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`emoji` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reactions_user_target_emoji_idx` ON `reactions` (`user_id`,`target_type`,`target_id`,`emoji`);--> statement-breakpoint
CREATE INDEX `reactions_target_idx` ON `reactions` (`target_type`,`target_id`,`emoji`,`created_at`);--> statement-breakpoint
CREATE TABLE `poll_votes` (
	`id` text PRIMARY KEY NOT NULL,
	`post_id` text NOT NULL,
	`user_id` text NOT NULL,
	`option_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `poll_votes_ballot_idx` ON `poll_votes` (`post_id`,`user_id`,`option_id`);--> statement-breakpoint
CREATE INDEX `poll_votes_option_idx` ON `poll_votes` (`post_id`,`option_id`);