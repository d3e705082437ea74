CREATE TABLE `service_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`post_id` text NOT NULL,
	`buyer_id` text NOT NULL,
	`seller_id` text NOT NULL,
	`agreed_amount_sats` integer NOT NULL,
	`buyer_brief` text,
	`status` text DEFAULT 'requested' NOT NULL,
	`invoice_id` text,
	`lightning_invoice` text,
	`payment_hash` text,
	`invoice_expires_at` integer,
	`accepted_at` integer,
	`declined_at` integer,
	`cancelled_at` integer,
	`paid_at` integer,
	`delivered_at` integer,
	`expired_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `service_orders_post_idx` ON `service_orders` (`post_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `service_orders_buyer_idx` ON `service_orders` (`buyer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `service_orders_seller_idx` ON `service_orders` (`seller_id`,`created_at`,`id`);