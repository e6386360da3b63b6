package ingest

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxSchemaFiles bounds the schemas one GML file's .xsd may pull in.
const maxSchemaFiles = 64

// checkGMLSchema refuses a GML file whose .xsd (the sibling GDAL reads for
// its fields) includes, directly or through the files it includes,
// anything but a relative path below its own folder: GDAL follows
// xs:include wherever it points, and a path such as ../../etc/x.xsd or
// /vsizip/... would make it read outside the upload (URLs could not be
// fetched anyway: gdal.Init closes the network).
func checkGMLSchema(abs string, siblings []string) error {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs)))
	for _, s := range siblings {
		if strings.ToLower(s) == base+".xsd" {
			seen := map[string]bool{}
			return checkIncludes(filepath.Dir(abs), s, seen)
		}
	}
	return nil
}

func checkIncludes(dir, rel string, seen map[string]bool) error {
	if seen[rel] {
		return nil
	}
	if seen[rel] = true; len(seen) > maxSchemaFiles {
		return fmt.Errorf("the schema includes more than %d files", maxSchemaFiles)
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil // GDAL reports a missing include itself
	}
	defer f.Close()
	dec := xml.NewDecoder(io.LimitReader(f, 16<<20))
	dec.Strict = false
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or XML GDAL will refuse itself
		}
		el, ok := tok.(xml.StartElement)
		if !ok || (el.Name.Local != "include" && el.Name.Local != "redefine") {
			continue
		}
		for _, a := range el.Attr {
			if a.Name.Local != "schemaLocation" {
				continue
			}
			next, ok := localInclude(rel, a.Value)
			if !ok {
				return fmt.Errorf("the schema %s includes %q: Geopub reads only files of the upload, next to or below the schema", path.Base(rel), a.Value)
			}
			if err := checkIncludes(dir, next, seen); err != nil {
				return err
			}
		}
	}
}

// localInclude resolves an include's location against the including
// file's folder; ok is false unless it stays below dir.
func localInclude(from, loc string) (string, bool) {
	loc = strings.TrimSpace(loc)
	if loc == "" || strings.ContainsAny(loc, ":\\\x00") || strings.HasPrefix(loc, "/") {
		return "", false
	}
	for _, p := range strings.Split(loc, "/") {
		if p == ".." {
			return "", false
		}
	}
	return path.Join(path.Dir(from), loc), true
}
