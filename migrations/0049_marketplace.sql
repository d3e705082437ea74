CREATE TABLE `bids` (
	`id` text PRIMARY KEY NOT NULL,
	`post_id` text NOT NULL,
	`bidder_id` text NOT NULL,
	`amount_sats` integer NOT NULL,
	`description` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bids_post_idx` ON `bids` (`post_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `bids_one_pending_idx` ON `bids` (`post_id`,`bidder_id`) WHERE "bids"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `bids_bidder_idx` ON `bids` (`bidder_id`,`status`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`subject_type` text NOT NULL,
	`subject_id` text NOT NULL,
	`post_id` text NOT NULL,
	`rater_id` text NOT NULL,
	`ratee_id` text NOT NULL,
	`rating` integer NOT NULL,
	`comment` text,
	`reply_body` text,
	`reply_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_one_per_rater_idx` ON `reviews` (`subject_type`,`subject_id`,`rater_id`);--> statement-breakpoint
CREATE INDEX `reviews_ratee_idx` ON `reviews` (`ratee_id`,`created_at`,`id`);