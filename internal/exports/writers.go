package exports

import (
	"context"
	"io"

	"github.com/geopub/geopub/internal/exportfile"
)

// Writers are the functions that write an export's files: exportfile's
// own wherever a field is nil (tests wrap them to slow a job down).
type Writers struct {
	Vector  func(ctx context.Context, dir string, item exportfile.VectorItem, f exportfile.Format, o exportfile.Options) (exportfile.Result, error)
	Raster  func(ctx context.Context, dir string, item exportfile.RasterItem, f exportfile.Format, o exportfile.Options) (exportfile.Result, error)
	Package func(ctx context.Context, dir string, w io.Writer) (int64, error)
}

func (s *Service) writers() Writers {
	w := s.Writers
	d := Writers{Vector: exportfile.WriteVector, Raster: exportfile.WriteRaster, Package: exportfile.Package}
	if w.Vector == nil {
		w.Vector = d.Vector
	}
	if w.Raster == nil {
		w.Raster = d.Raster
	}
	if w.Package == nil {
		w.Package = d.Package
	}
	return w
}
