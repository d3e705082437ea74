DROP INDEX `conversations_last_message_idx`;--> statement-breakpoint
DROP INDEX `messages_sender_created_idx`;