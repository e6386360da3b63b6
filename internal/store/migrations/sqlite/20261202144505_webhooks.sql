-- Create "webhook_deliveries" table
CREATE TABLE `webhook_deliveries` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `endpoint_id` integer NOT NULL, `event_id` integer NOT NULL, `message_id` text NOT NULL, `status` text NOT NULL DEFAULT ('pending'), `attempts` integer NOT NULL DEFAULT (0), `response_status` integer NULL, `error` text NOT NULL DEFAULT (''), `last_attempt_at` datetime NULL, `next_attempt_at` datetime NULL, `created_at` datetime NOT NULL);
-- Create index "webhookdelivery_endpoint_id_id" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_endpoint_id_id` ON `webhook_deliveries` (`endpoint_id`, `id`);
-- Create index "webhookdelivery_endpoint_id_event_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX `webhookdelivery_endpoint_id_event_id` ON `webhook_deliveries` (`endpoint_id`, `event_id`);
-- Create "webhook_endpoints" table
CREATE TABLE `webhook_endpoints` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `url` text NOT NULL, `description` text NOT NULL DEFAULT (''), `event_types` json NULL, `datasets` json NULL, `secret` text NOT NULL, `previous_secret` text NOT NULL DEFAULT (''), `previous_secret_expires_at` datetime NULL, `enabled` bool NOT NULL DEFAULT (true), `disabled_reason` text NOT NULL DEFAULT (''), `failing_since` datetime NULL);
-- Create index "webhookendpoint_user_id" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_user_id` ON `webhook_endpoints` (`user_id`);
-- Create index "webhookendpoint_group_id" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_group_id` ON `webhook_endpoints` (`group_id`);
