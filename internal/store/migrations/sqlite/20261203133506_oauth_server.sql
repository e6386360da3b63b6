-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_tokens" table
CREATE TABLE `new_tokens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL DEFAULT (''), `key_hash` text NOT NULL, `key_hint` text NOT NULL, `scope` text NOT NULL DEFAULT (''), `referrers` json NULL, `created_at` datetime NOT NULL, `expires_at` datetime NULL, `last_used_at` datetime NULL, `oauth_grant_id` integer NULL, `user_id` integer NOT NULL, CONSTRAINT `tokens_users_tokens` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "tokens" to new temporary table "new_tokens"
INSERT INTO `new_tokens` (`id`, `name`, `key_hash`, `key_hint`, `scope`, `referrers`, `created_at`, `expires_at`, `last_used_at`, `user_id`) SELECT `id`, `name`, `key_hash`, `key_hint`, `scope`, `referrers`, `created_at`, `expires_at`, `last_used_at`, `user_id` FROM `tokens`;
-- Drop "tokens" table after copying rows
DROP TABLE `tokens`;
-- Rename temporary table "new_tokens" to "tokens"
ALTER TABLE `new_tokens` RENAME TO `tokens`;
-- Create index "tokens_key_hash_key" to table: "tokens"
CREATE UNIQUE INDEX `tokens_key_hash_key` ON `tokens` (`key_hash`);
-- Create index "token_oauth_grant_id" to table: "tokens"
CREATE INDEX `token_oauth_grant_id` ON `tokens` (`oauth_grant_id`);
-- Create "oauth_clients" table
CREATE TABLE `oauth_clients` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `client_id` text NOT NULL, `name` text NOT NULL, `confidential` bool NOT NULL DEFAULT (false), `secret_hash` text NOT NULL DEFAULT (''), `redirect_uris` json NOT NULL, `scope` text NOT NULL DEFAULT (''), `created_by` integer NULL);
-- Create index "oauth_clients_client_id_key" to table: "oauth_clients"
CREATE UNIQUE INDEX `oauth_clients_client_id_key` ON `oauth_clients` (`client_id`);
-- Create "oauth_grants" table
CREATE TABLE `oauth_grants` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `client_id` integer NOT NULL, `user_id` integer NOT NULL, `scope` text NOT NULL, `code_hash` text NOT NULL, `code_challenge` text NOT NULL DEFAULT (''), `redirect_uri` text NOT NULL DEFAULT (''), `code_expires_at` datetime NOT NULL, `code_used_at` datetime NULL, `revoked_at` datetime NULL, `created_at` datetime NOT NULL);
-- Create index "oauth_grants_code_hash_key" to table: "oauth_grants"
CREATE UNIQUE INDEX `oauth_grants_code_hash_key` ON `oauth_grants` (`code_hash`);
-- Create index "oauthgrant_client_id" to table: "oauth_grants"
CREATE INDEX `oauthgrant_client_id` ON `oauth_grants` (`client_id`);
-- Create index "oauthgrant_user_id" to table: "oauth_grants"
CREATE INDEX `oauthgrant_user_id` ON `oauth_grants` (`user_id`);
-- Create "oauth_refresh_tokens" table
CREATE TABLE `oauth_refresh_tokens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `grant_id` integer NOT NULL, `token_hash` text NOT NULL, `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `rotated_at` datetime NULL);
-- Create index "oauth_refresh_tokens_token_hash_key" to table: "oauth_refresh_tokens"
CREATE UNIQUE INDEX `oauth_refresh_tokens_token_hash_key` ON `oauth_refresh_tokens` (`token_hash`);
-- Create index "oauthrefreshtoken_grant_id" to table: "oauth_refresh_tokens"
CREATE INDEX `oauthrefreshtoken_grant_id` ON `oauth_refresh_tokens` (`grant_id`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
