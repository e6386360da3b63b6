-- atlas:delimiter ;;
-- SQLite keys feature boxes by cell as PostgreSQL does (internal/cellkey),
-- in the B-tree on (version_id, cell, minx, maxx, miny, maxy) that
-- 20261128142034 created empty, and the R*Tree goes. Keeping the R*Tree
-- filled was half the CPU of an import of 1,000,000 points (13 of 28 s,
-- its ChooseLeaf and node reads, bench/import/RESULTS.md); a B-tree entry
-- costs a fraction of that. features_cell_key is the Go function
-- internal/store registers on every SQLite connection.
--
-- The writers (internal/featurerows: Writer, CopyVersion) key their rows
-- themselves. Unlike PostgreSQL, SQLite has no insert trigger keying rows
-- written without a key: any INSERT trigger makes SQLite keep a statement
-- journal of every page each multi-row INSERT changes (4.5 s of an
-- import's 16 s, 12 s without). A test holds every INSERT INTO features
-- inside internal/featurerows. A box that changes is rekeyed here.
DROP TRIGGER `features_rtree_insert`;;
DROP TRIGGER `features_rtree_delete`;;
DROP TRIGGER `features_rtree_update`;;
DROP TABLE `features_rtree`;;
UPDATE `features` SET `cell` = features_cell_key(`minx`, `miny`, `maxx`, `maxy`) WHERE `minx` IS NOT NULL;;
CREATE TRIGGER `features_cell_update` AFTER UPDATE OF `minx`, `miny`, `maxx`, `maxy` ON `features`
BEGIN
  UPDATE `features` SET `cell` = features_cell_key(new.`minx`, new.`miny`, new.`maxx`, new.`maxy`) WHERE `id` = new.`id`;
END;;
