-- The cell key of a feature's box (internal/features, cells.go). SQLite
-- indexes boxes with its R*Tree and leaves cell null; the column and the
-- (empty, partial) index exist so that both stores follow one Ent schema. Added in place: a
-- rebuild of features would drop its R*Tree triggers.
ALTER TABLE `features` ADD COLUMN `cell` integer NULL;
CREATE INDEX `feature_version_id_cell_minx_maxx_miny_maxy` ON `features` (`version_id`, `cell`, `minx`, `maxx`, `miny`, `maxy`) WHERE (cell IS NOT NULL);
