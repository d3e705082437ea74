CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`success` integer NOT NULL,
	`response_status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_webhook_idx` ON `webhook_attempts` (`webhook_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`user_id` text NOT NULL,
	`event` text NOT NULL,
	`event_id` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`is_replay` integer DEFAULT false NOT NULL,
	`is_test` integer DEFAULT false NOT NULL,
	`replay_of` text,
	`response_status` integer,
	`response_body` text,
	`error` text,
	`created_at` integer NOT NULL,
	`last_attempt_at` integer,
	`completed_at` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_idx` ON `webhook_deliveries` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`webhook_id`,`event_id`) WHERE "webhook_deliveries"."is_replay" = 0 and "webhook_deliveries"."is_test" = 0;--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`event` text NOT NULL,
	`webhook_id` text NOT NULL,
	`user_id` text NOT NULL,
	PRIMARY KEY(`event`, `webhook_id`)
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_webhook_idx` ON `webhook_subscriptions` (`webhook_id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_user_idx` ON `webhook_subscriptions` (`event`,`user_id`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`secret_enc` text NOT NULL,
	`events` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`failure_count` integer DEFAULT 0 NOT NULL,
	`last_triggered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhooks_user_url_idx` ON `webhooks` (`user_id`,`url`);--> statement-breakpoint
CREATE INDEX `webhooks_user_created_idx` ON `webhooks` (`user_id`,`created_at`);