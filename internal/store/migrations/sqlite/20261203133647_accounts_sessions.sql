-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_sessions" table
CREATE TABLE `new_sessions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `token_hash` text NOT NULL, `csrf_token` text NOT NULL, `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `last_seen_at` datetime NULL, `client_addr` text NOT NULL DEFAULT (''), `user_agent` text NOT NULL DEFAULT (''), `user_id` integer NOT NULL, CONSTRAINT `sessions_users_sessions` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "sessions" to new temporary table "new_sessions"
INSERT INTO `new_sessions` (`id`, `token_hash`, `csrf_token`, `created_at`, `expires_at`, `user_id`) SELECT `id`, `token_hash`, `csrf_token`, `created_at`, `expires_at`, `user_id` FROM `sessions`;
-- Drop "sessions" table after copying rows
DROP TABLE `sessions`;
-- Rename temporary table "new_sessions" to "sessions"
ALTER TABLE `new_sessions` RENAME TO `sessions`;
-- Create index "sessions_token_hash_key" to table: "sessions"
CREATE UNIQUE INDEX `sessions_token_hash_key` ON `sessions` (`token_hash`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
