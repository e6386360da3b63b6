-- Modify "scans" table
ALTER TABLE "scans" ADD COLUMN "skipped" jsonb NULL;
