ALTER TABLE `conversations` ADD `message_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `conversations` SET `message_count` = (SELECT count(*) FROM `messages` WHERE `messages`.`conversation_id` = `conversations`.`id`);
