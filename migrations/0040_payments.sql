CREATE TABLE `dev_wallet_invoices` (
	`payment_hash` text PRIMARY KEY NOT NULL,
	`preimage` text NOT NULL,
	`payment_request` text NOT NULL,
	`amount_sats` integer NOT NULL,
	`memo` text NOT NULL,
	`expires_at` integer NOT NULL,
	`settled_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dev_wallet_payments` (
	`payment_hash` text PRIMARY KEY NOT NULL,
	`destination` text NOT NULL,
	`amount_sats` integer NOT NULL,
	`comment` text,
	`preimage` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`subject_id` text NOT NULL,
	`payment_hash` text NOT NULL,
	`payment_request` text NOT NULL,
	`amount_sats` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`expires_at` integer NOT NULL,
	`paid_at` integer,
	`preimage` text,
	`next_check_at` integer NOT NULL,
	`checks` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_hash_idx` ON `invoices` (`payment_hash`);--> statement-breakpoint
CREATE INDEX `invoices_subject_idx` ON `invoices` (`purpose`,`subject_id`);--> statement-breakpoint
CREATE INDEX `invoices_due_idx` ON `invoices` (`status`,`next_check_at`);--> statement-breakpoint
CREATE TABLE `payouts` (
	`id` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`subject_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`gross_sats` integer NOT NULL,
	`fee_sats` integer NOT NULL,
	`amount_sats` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lightning_address` text,
	`payment_hash` text,
	`preimage` text,
	`routing_fee_sats` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_subject_idx` ON `payouts` (`purpose`,`subject_id`);--> statement-breakpoint
CREATE INDEX `payouts_due_idx` ON `payouts` (`status`,`next_attempt_at`);