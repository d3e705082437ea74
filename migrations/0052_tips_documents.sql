CREATE TABLE `tips` (
	`id` text PRIMARY KEY NOT NULL,
	`tipper_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`post_id` text NOT NULL,
	`comment_id` text,
	`amount_sats` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`payment_hash` text NOT NULL,
	`payment_request` text NOT NULL,
	`expires_at` integer NOT NULL,
	`paid_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tips_paid_idx` ON `tips` (`status`,`paid_at`,`id`);--> statement-breakpoint
CREATE INDEX `tips_tipper_idx` ON `tips` (`tipper_id`,`status`,`paid_at`,`id`);--> statement-breakpoint
CREATE INDEX `tips_recipient_idx` ON `tips` (`recipient_id`,`status`,`paid_at`,`id`);--> statement-breakpoint
CREATE INDEX `tips_post_idx` ON `tips` (`post_id`,`status`);--> statement-breakpoint
CREATE INDEX `tips_comment_idx` ON `tips` (`comment_id`,`status`);--> statement-breakpoint
CREATE TABLE `document_contents` (
	`document_id` text PRIMARY KEY NOT NULL,
	`content` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `document_purchases` (
	`id` text PRIMARY KEY NOT NULL,
	`document_id` text NOT NULL,
	`buyer_id` text,
	`amount_sats` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`payment_hash` text NOT NULL,
	`payment_request` text NOT NULL,
	`expires_at` integer NOT NULL,
	`paid_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_purchases_hash_idx` ON `document_purchases` (`payment_hash`);--> statement-breakpoint
CREATE INDEX `document_purchases_buyer_idx` ON `document_purchases` (`buyer_id`,`document_id`,`status`);--> statement-breakpoint
CREATE INDEX `document_purchases_buyer_new_idx` ON `document_purchases` (`buyer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `document_purchases_document_idx` ON `document_purchases` (`document_id`,`status`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`seller_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`content_size` integer NOT NULL,
	`content_chars` integer NOT NULL,
	`content_hash` text NOT NULL,
	`price_sats` integer NOT NULL,
	`visibility` text DEFAULT 'public' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`preview_text` text,
	`preview_auto_chars` integer DEFAULT 300 NOT NULL,
	`preview` text,
	`preview_type` text,
	`download_count` integer DEFAULT 0 NOT NULL,
	`total_earned_sats` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`delisted_at` integer
);
--> statement-breakpoint
CREATE INDEX `documents_catalogue_idx` ON `documents` (`status`,`visibility`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_hash_idx` ON `documents` (`content_hash`);--> statement-breakpoint
CREATE INDEX `documents_seller_idx` ON `documents` (`seller_id`,`created_at`,`id`);