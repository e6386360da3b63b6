-- Create "dataset_follows" table
CREATE TABLE `dataset_follows` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `user_id` integer NOT NULL, `dataset_type` text NOT NULL, `dataset_id` integer NOT NULL, `following` bool NOT NULL, `created_at` datetime NOT NULL);
-- Create index "datasetfollow_user_id_dataset_type_dataset_id" to table: "dataset_follows"
CREATE UNIQUE INDEX `datasetfollow_user_id_dataset_type_dataset_id` ON `dataset_follows` (`user_id`, `dataset_type`, `dataset_id`);
-- Create index "datasetfollow_dataset_type_dataset_id" to table: "dataset_follows"
CREATE INDEX `datasetfollow_dataset_type_dataset_id` ON `dataset_follows` (`dataset_type`, `dataset_id`);
