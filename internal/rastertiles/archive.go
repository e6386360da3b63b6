package rastertiles

import (
	"context"
	"image"
	"image/draw"

	"github.com/geopub/geopub/internal/vectortiles"
)

// ArchiveTile draws tile t of the published layers ls (whose access the
// caller decided), in order, the first at the bottom, with the default
// style, encoded in f; nil when none of them has anything in the tile,
// so a tile archive leaves it and what lies under it out. It bypasses the
// image cache: a build visits each tile once.
func (s *Service) ArchiveTile(ctx context.Context, ls []*vectortiles.Layer, t vectortiles.Tile, f Format) ([]byte, error) {
	var st Style
	var out *image.NRGBA
	for _, l := range ls {
		img, err := s.draw(ctx, l, t, st)
		if err != nil {
			return nil, err
		}
		if img == nil {
			continue
		}
		if out == nil {
			out = img
			continue
		}
		draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Over)
	}
	if out == nil {
		return nil, nil
	}
	return encode(out, f)
}

// Blank is a transparent tile in f.
func (s *Service) Blank(f Format) []byte {
	b, err := encode(nil, f)
	if err != nil {
		return nil
	}
	return b
}
