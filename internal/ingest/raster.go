package ingest

import (
	"math"
	"path/filepath"
	"strings"
)

// describeRaster opens a raster. One with a geotransform and a CRS is a
// grid; an image without georeferencing is a document.
func describeRaster(root string, c candidate, lim Limits) ([]Datasource, []Problem) {
	abs := filepath.Join(root, filepath.FromSlash(c.rel))
	ds, err := openLocal(abs, false, c.kind.drivers, c.siblings(), nil)
	if err != nil {
		return nil, []Problem{{Path: c.rel, Message: "cannot open as " + c.kind.drivers[0] + ": " + relMsg(root, err.Error())}}
	}
	defer ds.Close()
	gt, gterr := ds.GeoTransform()
	wkt := ds.Projection()
	if gterr != nil || wkt == "" {
		return []Datasource{documentOf(c, documentType(c.rel))}, nil
	}
	st := ds.Structure()
	if err := lim.checkRaster(c.rel, st.SizeX, st.SizeY, st.NBands); err != nil {
		return nil, []Problem{{Path: c.rel, Message: strings.TrimPrefix(err.Error(), "ingest: ")}}
	}
	d := Datasource{
		Path:         c.rel,
		Files:        c.files,
		MetadataPath: c.metadata,
		Title:        title(c.rel),
		DataType:     TypeGrid,
		Format:       c.kind.format,
		Driver:       ds.Driver().ShortName(),
		CRS:          crsOf(wkt),
		NumBands:     st.NBands,
		Width:        st.SizeX,
		Height:       st.SizeY,
		Resolution:   math.Abs(gt[1]),
		NumDims:      2,
	}
	for _, b := range ds.Bands() {
		d.BandTypes = append(d.BandTypes, b.Structure().DataType.String())
	}
	box := cornerBox(gt, st.SizeX, st.SizeY)
	var probs []Problem
	if ext, err := toLonLat(wkt, box); err == nil {
		d.Extent = &ext
	} else {
		probs = append(probs, Problem{Path: c.rel, Message: "extent: " + err.Error()})
	}
	return []Datasource{d}, probs
}
