package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// The quarter of the extent the cropped runs keep: its middle, half as
// wide and half as high.
var quarter = [4]float64{
	minLon + (maxLon-minLon)/4, minLat + (maxLat-minLat)/4,
	maxLon - (maxLon-minLon)/4, maxLat - (maxLat-minLat)/4,
}

// quarterWKT is the quarter as ogr2ogr's -clipsrc takes it.
func quarterWKT() string {
	q := quarter
	return fmt.Sprintf("POLYGON ((%[1]g %[2]g,%[3]g %[2]g,%[3]g %[4]g,%[1]g %[4]g,%[1]g %[2]g))", q[0], q[1], q[2], q[3])
}

// quarterWKB is the quarter as exportfile.Options.Clip takes it.
func quarterWKB() []byte {
	q := quarter
	b := []byte{1}
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 5)
	for _, p := range [][2]float64{{q[0], q[1]}, {q[2], q[1]}, {q[2], q[3]}, {q[0], q[3]}, {q[0], q[1]}} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p[0]))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p[1]))
	}
	return b
}

// childReport is what an export child prints.
type childReport struct {
	Features int64         `json:"features"`
	Wall     time.Duration `json:"wall"`
	MaxRSS   int64         `json:"max_rss"`
}

// exportChild is our path in its own process: exportfile.WriteVector of
// one layer version read with featurerows.ReadRaw, into out's folder, as the
// exports job runs it.
func exportChild(ctx context.Context, dbURL, dataDir string, version int, format, out string, crop bool, cpuProfile string) error {
	stopProfile, err := benchkit.Profile(cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	start := time.Now()
	st, err := store.Open(ctx, store.Config{DatabaseURL: dbURL, DataDir: dataDir})
	if err != nil {
		return err
	}
	defer st.Close()
	mime := map[string]string{"gpkg": exportfile.MIMEGeoPackage, "fgb": exportfile.MIMEFlatGeobuf}[format]
	f, ok := exportfile.FormatByMIME(exportfile.KindVector, mime)
	if !ok {
		return fmt.Errorf("no format %q", format)
	}
	n, err := featurerows.Count(ctx, st, version)
	if err != nil {
		return err
	}
	item := exportfile.VectorItem{
		Name:         strings.TrimSuffix(filepath.Base(out), filepath.Ext(out)),
		Fields:       benchFields,
		GeometryType: map[int]string{pointsVersion: "point", polygonsVersion: "polygon"}[version],
		Count:        n,
		Rows: func(ctx context.Context, fn func(*featurerows.RawRow) error) error {
			return featurerows.ReadRaw(ctx, st, version, fn)
		},
	}
	var o exportfile.Options
	if crop {
		o = exportfile.Options{CRS: "EPSG:2193", Clip: quarterWKB()}
	}
	res, err := exportfile.WriteVector(ctx, filepath.Dir(out), item, f, o)
	if err != nil {
		return err
	}
	rep := childReport{Features: res.Features, Wall: time.Since(start), MaxRSS: benchkit.VmHWM()}
	return json.NewEncoder(os.Stdout).Encode(rep)
}
