package ingest

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// A GeoPackage view that recurses forever holds GDAL in one SQLite
// statement; the end of the scan's context interrupts it, and the scan
// returns at once with the file it was reading.
func TestScanOfEndlessViewStopsAtDeadline(t *testing.T) {
	dir := t.TempDir()
	ingesttest.ForeverGeoPackage(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := Scan(ctx, dir)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("scan ended after %s with %v", time.Since(start), err)
	}
	// GDAL stopped too, not only the scan: nothing burns a core after.
	time.Sleep(200 * time.Millisecond)
	before := cpuTime(t)
	time.Sleep(time.Second)
	if used := cpuTime(t) - before; used > 300*time.Millisecond {
		t.Fatalf("the process used %s of CPU in the second after the scan stopped", used)
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
