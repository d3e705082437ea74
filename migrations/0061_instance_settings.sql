CREATE TABLE `instance_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text,
	`description` text,
	`rules` text,
	`registration` text,
	`setup_token_hash` text,
	`updated_at` integer NOT NULL,
	`updated_by` text
);
