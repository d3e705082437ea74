CREATE TABLE `vault_files` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`filename` text NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_files_user_filename_idx` ON `vault_files` (`user_id`,`filename`);--> statement-breakpoint
CREATE INDEX `vault_files_user_sha_idx` ON `vault_files` (`user_id`,`sha256`);