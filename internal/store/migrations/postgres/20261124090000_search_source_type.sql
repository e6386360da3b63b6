-- The type of a source doc (upload, url, wfs, ...), for /sources/'s type
-- filter beside the catalogue's filters; '' for other docs.
ALTER TABLE "search_docs" ADD COLUMN "source_type" character varying NOT NULL DEFAULT '';
