CREATE TABLE `notarisations` (
	`id` text PRIMARY KEY NOT NULL,
	`subject_type` text NOT NULL,
	`subject_id` text NOT NULL,
	`author_id` text NOT NULL,
	`canonical` text NOT NULL,
	`payload_hash` text NOT NULL,
	`proof` blob NOT NULL,
	`calendars` text NOT NULL,
	`proof_state` text DEFAULT 'recorded' NOT NULL,
	`proof_observed_at` integer NOT NULL,
	`proof_note` text NOT NULL,
	`bitcoin_block_height` integer,
	`checks` integer DEFAULT 0 NOT NULL,
	`last_checked_at` integer,
	`next_check_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notarisations_subject_idx` ON `notarisations` (`subject_type`,`subject_id`);--> statement-breakpoint
CREATE INDEX `notarisations_author_idx` ON `notarisations` (`author_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notarisations_due_idx` ON `notarisations` (`next_check_at`);--> statement-breakpoint
ALTER TABLE `comments` ADD `notarised_at` integer;