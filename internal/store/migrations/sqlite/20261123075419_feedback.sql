-- Create "feedbacks" table
CREATE TABLE `feedbacks` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `title` text NOT NULL DEFAULT (''), `description` text NOT NULL, `status` text NOT NULL DEFAULT (''), `sub_status` text NOT NULL DEFAULT (''), `tags` text NOT NULL DEFAULT (''), `assignee_id` integer NULL, `target_type` text NOT NULL DEFAULT (''), `target_id` integer NULL, `permalink_url` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `attachments` json NULL);
-- Create index "feedback_target_type_target_id" to table: "feedbacks"
CREATE INDEX `feedback_target_type_target_id` ON `feedbacks` (`target_type`, `target_id`);
-- Create index "feedback_created_by" to table: "feedbacks"
CREATE INDEX `feedback_created_by` ON `feedbacks` (`created_by`);
-- Create "feedback_records" table
CREATE TABLE `feedback_records` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `description` text NOT NULL DEFAULT (''), `changes` json NOT NULL, `is_internal` bool NOT NULL DEFAULT (false), `attachments` json NULL, `permalink_url` text NULL, `created_by` integer NOT NULL, `created_at` datetime NOT NULL, `feedback_id` integer NOT NULL, CONSTRAINT `feedback_records_feedbacks_updates` FOREIGN KEY (`feedback_id`) REFERENCES `feedbacks` (`id`) ON DELETE NO ACTION);
