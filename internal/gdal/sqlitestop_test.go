package gdal_test

import (
	"context"
	"testing"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// The end of the context interrupts a SQLite statement that would run
// forever inside one GDAL call.
func TestWatchSQLite(t *testing.T) {
	gdal.Init()
	p := ingesttest.ForeverGeoPackage(t, t.TempDir())
	ds, err := godal.Open(p, godal.VectorOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	release := gdal.WatchSQLite(ctx, ds)
	defer release()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f, _ := gdal.NextFeature(*ds.LayerByName("forever")); f != nil {
			f.Close()
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the statement was not interrupted")
	}
}
