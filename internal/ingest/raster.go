package ingest

import (
	"math"
	"path/filepath"
)

// describeRaster opens a raster. One with a geotransform and a CRS is a
// grid; an image without georeferencing is a document.
func describeRaster(root string, c candidate) ([]Datasource, []Problem) {
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
	// Box of the four corners in the raster's CRS (rotation included).
	xs := [4]float64{}
	ys := [4]float64{}
	for i, px := range [4][2]float64{{0, 0}, {float64(st.SizeX), 0}, {0, float64(st.SizeY)}, {float64(st.SizeX), float64(st.SizeY)}} {
		xs[i] = gt[0] + px[0]*gt[1] + px[1]*gt[2]
		ys[i] = gt[3] + px[0]*gt[4] + px[1]*gt[5]
	}
	box := [4]float64{
		math.Min(math.Min(xs[0], xs[1]), math.Min(xs[2], xs[3])),
		math.Min(math.Min(ys[0], ys[1]), math.Min(ys[2], ys[3])),
		math.Max(math.Max(xs[0], xs[1]), math.Max(xs[2], xs[3])),
		math.Max(math.Max(ys[0], ys[1]), math.Max(ys[2], ys[3])),
	}
	var probs []Problem
	if ext, err := toLonLat(wkt, box); err == nil {
		d.Extent = &ext
	} else {
		probs = append(probs, Problem{Path: c.rel, Message: "extent: " + err.Error()})
	}
	return []Datasource{d}, probs
}
