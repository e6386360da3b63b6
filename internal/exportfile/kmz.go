package exportfile

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
)

// zipKML turns the KML at src into the KMZ at dst (a zip holding it as
// doc.kml, which readers open first) and removes src.
func zipKML(ctx context.Context, src, dst string) error {
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("exportfile: %w", err)
	}
	zw := zip.NewWriter(out)
	err = addFileAs(ctx, zw, src, "doc.kml")
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("exportfile: writing %s: %w", dst, err)
	}
	return os.Remove(src)
}
