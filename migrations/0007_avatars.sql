ALTER TABLE `users` ADD `avatar_settings` text;--> statement-breakpoint
ALTER TABLE `users` ADD `avatar_path` text;--> statement-breakpoint
ALTER TABLE `users` ADD `avatar_uploaded_at` integer;