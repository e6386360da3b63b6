-- Create "access_requests" table
CREATE TABLE `access_requests` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `status` text NOT NULL DEFAULT ('outstanding'), `closed_at` datetime NULL, `group_id` integer NOT NULL, `user_id` integer NOT NULL, CONSTRAINT `access_requests_groups_access_requests` FOREIGN KEY (`group_id`) REFERENCES `groups` (`id`) ON DELETE NO ACTION, CONSTRAINT `access_requests_users_access_requests` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Create index "accessrequest_group_id_user_id_status" to table: "access_requests"
CREATE INDEX `accessrequest_group_id_user_id_status` ON `access_requests` (`group_id`, `user_id`, `status`);
-- Create "groups" table
CREATE TABLE `groups` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `url_slug` text NOT NULL, `country` text NOT NULL DEFAULT (''), `data_owner` text NOT NULL DEFAULT ('group'), `access_requests_enabled` bool NOT NULL DEFAULT (false), `catalog_feeds_enabled` bool NOT NULL DEFAULT (true), `type` text NOT NULL DEFAULT ('normal'), `is_default` bool NOT NULL DEFAULT (false));
-- Create index "groups_url_slug_key" to table: "groups"
CREATE UNIQUE INDEX `groups_url_slug_key` ON `groups` (`url_slug`);
-- Create "group_memberships" table
CREATE TABLE `group_memberships` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `permission` text NOT NULL DEFAULT ('member'), `group_id` integer NOT NULL, `user_id` integer NOT NULL, CONSTRAINT `group_memberships_groups_memberships` FOREIGN KEY (`group_id`) REFERENCES `groups` (`id`) ON DELETE NO ACTION, CONSTRAINT `group_memberships_users_memberships` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Create index "groupmembership_group_id_user_id" to table: "group_memberships"
CREATE UNIQUE INDEX `groupmembership_group_id_user_id` ON `group_memberships` (`group_id`, `user_id`);
-- Create index "groupmembership_user_id" to table: "group_memberships"
CREATE INDEX `groupmembership_user_id` ON `group_memberships` (`user_id`);
-- Create "login_throttles" table
CREATE TABLE `login_throttles` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `key` text NOT NULL, `failures` integer NOT NULL DEFAULT (0), `window_start` datetime NOT NULL, `blocked_until` datetime NULL);
-- Create index "login_throttles_key_key" to table: "login_throttles"
CREATE UNIQUE INDEX `login_throttles_key_key` ON `login_throttles` (`key`);
-- Create "notifications" table
CREATE TABLE `notifications` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `kind` text NOT NULL, `payload` json NULL, `created_at` datetime NOT NULL, `read_at` datetime NULL, `user_id` integer NOT NULL, CONSTRAINT `notifications_users_notifications` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Create index "notification_user_id_id" to table: "notifications"
CREATE INDEX `notification_user_id_id` ON `notifications` (`user_id`, `id`);
-- Create "sessions" table
CREATE TABLE `sessions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `token_hash` text NOT NULL, `csrf_token` text NOT NULL, `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL, `user_id` integer NOT NULL, CONSTRAINT `sessions_users_sessions` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Create index "sessions_token_hash_key" to table: "sessions"
CREATE UNIQUE INDEX `sessions_token_hash_key` ON `sessions` (`token_hash`);
-- Create "tokens" table
CREATE TABLE `tokens` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL DEFAULT (''), `key_hash` text NOT NULL, `key_hint` text NOT NULL, `scope` text NOT NULL DEFAULT (''), `referrers` json NULL, `created_at` datetime NOT NULL, `expires_at` datetime NULL, `last_used_at` datetime NULL, `user_id` integer NOT NULL, CONSTRAINT `tokens_users_tokens` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Create index "tokens_key_hash_key" to table: "tokens"
CREATE UNIQUE INDEX `tokens_key_hash_key` ON `tokens` (`key_hash`);
-- Create "users" table
CREATE TABLE `users` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `email` text NOT NULL, `password_hash` text NOT NULL DEFAULT (''), `first_name` text NOT NULL DEFAULT (''), `last_name` text NOT NULL DEFAULT (''), `country` text NOT NULL DEFAULT (''), `is_locked` bool NOT NULL DEFAULT (false), `is_site_admin` bool NOT NULL DEFAULT (false), `seat_type` text NOT NULL DEFAULT ('none'), `mfa_enabled` bool NOT NULL DEFAULT (false), `remote_auth` bool NOT NULL DEFAULT (false), `email_verified` bool NOT NULL DEFAULT (false));
-- Create index "users_email_key" to table: "users"
CREATE UNIQUE INDEX `users_email_key` ON `users` (`email`);
