-- Create "audit_entries" table
CREATE TABLE `audit_entries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `actor_kind` text NOT NULL, `actor_user_id` integer NULL, `actor_label` text NOT NULL DEFAULT (''), `actor_session_id` integer NULL, `actor_token_id` integer NULL, `action` text NOT NULL, `target_type` text NOT NULL, `target_id` text NOT NULL DEFAULT (''), `target_label` text NOT NULL DEFAULT (''), `before` json NULL, `after` json NULL, `client_addr` text NOT NULL DEFAULT (''), `group_ids` text NOT NULL DEFAULT (''));
-- Create index "auditentry_created_at" to table: "audit_entries"
CREATE INDEX `auditentry_created_at` ON `audit_entries` (`created_at`);
-- Create index "auditentry_actor_user_id_id" to table: "audit_entries"
CREATE INDEX `auditentry_actor_user_id_id` ON `audit_entries` (`actor_user_id`, `id`);
-- Create index "auditentry_target_type_target_id_id" to table: "audit_entries"
CREATE INDEX `auditentry_target_type_target_id_id` ON `audit_entries` (`target_type`, `target_id`, `id`);
-- Create index "auditentry_action_id" to table: "audit_entries"
CREATE INDEX `auditentry_action_id` ON `audit_entries` (`action`, `id`);
