-- Add column "skipped" to table: "scans"
ALTER TABLE `scans` ADD COLUMN `skipped` json NULL;
