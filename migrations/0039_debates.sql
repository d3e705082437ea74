CREATE TABLE `debate_arguments` (
	`id` text PRIMARY KEY NOT NULL,
	`debate_id` text NOT NULL,
	`user_id` text NOT NULL,
	`turn_number` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `debate_arguments_debate_idx` ON `debate_arguments` (`debate_id`,`turn_number`);--> statement-breakpoint
CREATE TABLE `debate_votes` (
	`debate_id` text NOT NULL,
	`user_id` text NOT NULL,
	`voted_for` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`debate_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `debate_votes_user_idx` ON `debate_votes` (`user_id`);--> statement-breakpoint
CREATE TABLE `debates` (
	`id` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`creator_side` text NOT NULL,
	`proposition` text NOT NULL,
	`description` text,
	`opponent_id` text,
	`state` text DEFAULT 'open' NOT NULL,
	`turn_number` integer DEFAULT 0 NOT NULL,
	`voting_ends_at` integer,
	`creator_votes` integer DEFAULT 0 NOT NULL,
	`opponent_votes` integer DEFAULT 0 NOT NULL,
	`winner_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `debates_created_idx` ON `debates` (`created_at`);--> statement-breakpoint
CREATE INDEX `debates_state_idx` ON `debates` (`state`,`voting_ends_at`);