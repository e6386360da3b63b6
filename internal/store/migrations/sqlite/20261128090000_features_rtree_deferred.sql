-- atlas:delimiter ;;

-- features.Writer fills the R*Tree itself, with one INSERT … SELECT when it
-- closes, instead of through the insert trigger row by row: each of its
-- multi-row INSERTs fired the trigger, so SQLite kept a statement journal
-- of every R*Tree node the statement changed (hundreds per 500-row batch,
-- spilled to a temporary file), which made an import 1.4 × ogr2ogr's time
-- (bench/import). While a Writer is open it holds a marker entry in the
-- tree, id = -version_id (its version dimension is negative, so no box
-- query meets it), and the trigger skips that version's rows; the marker,
-- the rows and their index entries are written in the same transaction.
DROP TRIGGER `features_rtree_insert`;;
CREATE TRIGGER `features_rtree_insert` AFTER INSERT ON `features`
  WHEN new.`minx` IS NOT NULL AND new.`miny` IS NOT NULL AND new.`maxx` IS NOT NULL AND new.`maxy` IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM `features_rtree` WHERE `id` = -new.`version_id`)
BEGIN
  INSERT INTO `features_rtree` (`id`, `vmin`, `vmax`, `minx`, `maxx`, `miny`, `maxy`)
    VALUES (new.`id`, new.`version_id`, new.`version_id` + 0.5, new.`minx`, new.`maxx`, new.`miny`, new.`maxy`);
END;;
