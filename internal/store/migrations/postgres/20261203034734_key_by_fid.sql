-- Modify "layer_versions" table
ALTER TABLE "layer_versions" ADD COLUMN "key_by_fid" boolean NOT NULL DEFAULT false;
