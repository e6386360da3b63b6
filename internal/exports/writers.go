package exports

import (
	"context"
	"errors"
	"io"

	"github.com/geopub/geopub/internal/exportfile"
)

// Writers are the functions that write an export's files (package
// exportfile); tests and the wiring use the package's own.
type Writers struct {
	Vector  func(ctx context.Context, dir string, item exportfile.VectorItem, f exportfile.Format, o exportfile.Options) (exportfile.Result, error)
	Raster  func(ctx context.Context, dir string, item exportfile.RasterItem, f exportfile.Format, o exportfile.Options) (exportfile.Result, error)
	Package func(ctx context.Context, dir string, w io.Writer) (int64, error)
}

// errNoWriter is the failure of a part whose writer is missing.
var errNoWriter = permanentError{errors.New("this server cannot write that kind of data yet")}

func (s *Service) writers() Writers {
	w := s.Writers
	d := defaultWriters()
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
