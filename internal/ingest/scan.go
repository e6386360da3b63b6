package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Result is what Scan found.
type Result struct {
	Datasources []Datasource
	Problems    []Problem
}

// candidate is a main data file with the files that belong to it.
type candidate struct {
	rel      string
	kind     kind
	files    []string // main file and sidecars, relative
	metadata string
}

// Scan walks dir (an unpacked upload) and describes every datasource in it.
// Files GDAL cannot read become Problems; Scan itself only fails when dir
// cannot be walked or ctx is cancelled. Symbolic links are not followed.
// Rasters are held to the default Limits; see ScanWith.
func Scan(ctx context.Context, dir string) (Result, error) { return ScanWith(ctx, dir, Limits{}) }

// ScanWith is Scan with lim's bounds on rasters: a raster declaring more
// cells than lim.MaxRasterCells becomes a Problem, not a datasource.
func ScanWith(ctx context.Context, dir string, lim Limits) (Result, error) {
	var res Result
	root, err := filepath.Abs(dir)
	if err != nil {
		return res, err
	}
	files, gdbs, err := listFiles(ctx, root)
	if err != nil {
		return res, err
	}
	cands, docs, probs := group(files)
	for _, g := range gdbs {
		cands = append(cands, candidate{rel: g, kind: kinds[".gdb"], files: []string{g}})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].rel < cands[j].rel })
	res.Problems = probs
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		found, p, err := describe(ctx, root, c, lim)
		if err != nil {
			return res, fmt.Errorf("reading %s: %w", c.rel, err)
		}
		res.Datasources = append(res.Datasources, found...)
		res.Problems = append(res.Problems, p...)
	}
	res.Datasources = append(res.Datasources, docs...)
	sort.SliceStable(res.Datasources, func(i, j int) bool {
		a, b := res.Datasources[i], res.Datasources[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Layer < b.Layer
	})
	sort.SliceStable(res.Problems, func(i, j int) bool { return res.Problems[i].Path < res.Problems[j].Path })
	return res, nil
}

// describe describes one candidate, abandoning it when ctx ends first:
// GDAL's calls take no context, and a hostile file can hold one for as
// long as it likes. What can be interrupted is (gdal.WatchSQLite); anything
// else is left to finish on its own, its result dropped, while the scan
// fails at once.
func describe(ctx context.Context, root string, c candidate, lim Limits) ([]Datasource, []Problem, error) {
	type result struct {
		found []Datasource
		probs []Problem
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		if c.kind.dataType == TypeGrid {
			r.found, r.probs = describeRaster(root, c, lim)
		} else {
			r.found, r.probs = describeVector(ctx, root, c)
		}
		ch <- r
	}()
	select {
	case r := <-ch:
		return r.found, r.probs, ctx.Err()
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// listFiles returns the regular files below root (relative, slash
// separated) and the FileGDB directories, which are not descended into.
func listFiles(ctx context.Context, root string) (files, gdbs []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if ignored(d.Name()) || strings.EqualFold(d.Name(), "__MACOSX") {
				return filepath.SkipDir
			}
			if strings.HasSuffix(strings.ToLower(d.Name()), ".gdb") {
				gdbs = append(gdbs, rel)
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !ignored(d.Name()) {
			files = append(files, rel)
		}
		return nil // symlinks and special files are skipped, never followed
	})
	sort.Strings(files)
	return files, gdbs, err
}

// group finds the main data files, attaches their sidecars and metadata,
// and turns the rest into documents (or problems, for orphaned sidecars).
func group(files []string) (cands []candidate, docs []Datasource, probs []Problem) {
	byLower := map[string]string{}
	for _, f := range files {
		byLower[strings.ToLower(f)] = f
	}
	has := func(lower string) bool { _, ok := byLower[lower]; return ok }
	claimed := map[string]bool{}

	for _, f := range files {
		ext := lowerExt(f)
		k, ok := kinds[ext]
		if !ok {
			continue
		}
		if ext == ".dbf" && has(stem(f)+".shp") {
			continue // attribute part of a shapefile
		}
		cands = append(cands, candidate{rel: f, kind: k, files: []string{f}})
		claimed[f] = true
	}
	for i := range cands {
		c := &cands[i]
		s, full := stem(c.rel), strings.ToLower(c.rel)
		for _, ext := range c.kind.sidecars {
			for _, l := range []string{s + ext, full + ext} {
				if f, ok := byLower[l]; ok && !claimed[f] {
					c.files = append(c.files, f)
					claimed[f] = true
				}
			}
		}
		for _, l := range []string{s + ".xml", full + ".xml"} {
			if f, ok := byLower[l]; ok && !claimed[f] {
				c.metadata = f
				claimed[f] = true
			}
		}
		sort.Strings(c.files)
	}
	// Metadata for documents (report.pdf + report.xml) is claimed next.
	for _, f := range files {
		if claimed[f] || lowerExt(f) == ".xml" {
			continue
		}
		ext := lowerExt(f)
		if isShpSidecar(ext) {
			probs = append(probs, Problem{Path: f, Message: "shapefile component without its .shp file"})
			claimed[f] = true
			continue
		}
		d := Datasource{Path: f, Files: []string{f}, Title: title(f), DataType: TypeDocument, Format: documentType(f)}
		if m, ok := byLower[stem(f)+".xml"]; ok && !claimed[m] {
			d.MetadataPath = m
			claimed[m] = true
		}
		claimed[f] = true
		docs = append(docs, d)
	}
	for _, f := range files {
		if !claimed[f] {
			docs = append(docs, Datasource{Path: f, Files: []string{f}, Title: title(f), DataType: TypeDocument, Format: documentType(f)})
		}
	}
	return cands, docs, probs
}

func isShpSidecar(ext string) bool {
	for _, s := range shpSidecars {
		if s == ext && ext != ".dbf" && ext != ".prj" {
			return true
		}
	}
	return false
}

// siblings returns the base names GDAL may probe next to the main file.
func (c candidate) siblings() []string {
	var out []string
	for _, f := range c.files {
		if path.Dir(f) == path.Dir(c.rel) {
			out = append(out, path.Base(f))
		}
	}
	return out
}
