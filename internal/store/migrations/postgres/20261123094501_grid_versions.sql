-- Modify "layer_versions" table
ALTER TABLE "layer_versions" ADD COLUMN "bands" jsonb NULL, ADD COLUMN "raster_resolution" double precision NULL, ADD COLUMN "raster_width" bigint NOT NULL DEFAULT 0, ADD COLUMN "raster_height" bigint NOT NULL DEFAULT 0;
