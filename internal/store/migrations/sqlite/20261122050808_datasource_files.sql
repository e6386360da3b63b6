-- Add column "files" to table: "datasources"
ALTER TABLE `datasources` ADD COLUMN `files` json NULL;
