-- Spatial index of the features' boxes (internal/features.BoxIndex): GiST
-- over (version_id, box), version_id through btree_gist (a trusted
-- contrib extension), so one index narrows on the version and the box at
-- once. Queries test box(point(minx, miny), point(maxx, maxy)) && box(...).
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE INDEX "features_version_box" ON "features" USING gist ("version_id", box(point("minx", "miny"), point("maxx", "maxy")));
