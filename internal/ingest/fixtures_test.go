package ingest

import (
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// Test inputs are built at test time with GDAL by package ingesttest.

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var nzPoints = ingesttest.NZPoints
