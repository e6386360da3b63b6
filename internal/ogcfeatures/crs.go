package ogcfeatures

import (
	"errors"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/crsinfo"
	"github.com/geopub/geopub/internal/gdal"
)

// CRS84URI names WGS 84 longitude, latitude: the default CRS and the
// storage CRS.
const CRS84URI = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"

// epsgPrefix starts the URI of every EPSG CRS.
const epsgPrefix = "http://www.opengis.net/def/crs/EPSG/0/"

// CRS is a coordinate reference system a request names: CRS84 (EPSG 0
// here) or an EPSG code.
type CRS struct {
	EPSG int // 0 for CRS84
}

// URI is the CRS's OGC URI.
func (c CRS) URI() string {
	if c.EPSG == 0 {
		return CRS84URI
	}
	return epsgPrefix + strconv.Itoa(c.EPSG)
}

// IsCRS84 reports whether c is the storage CRS (no reprojection).
func (c CRS) IsCRS84() bool { return c.EPSG == 0 }

// NorthingFirst reports whether c's authority lists its axes latitude
// (or northing) first, as EPSG:4326 and EPSG:2193 do: the order of the
// Transformer's output. CRS84 is longitude first.
func (c CRS) NorthingFirst() bool {
	return c.EPSG != 0 && gdal.NorthingFirst(c.EPSG)
}

// errUnknownCRS is the answer for a CRS that is not CRS84 nor an EPSG code
// PROJ knows.
var errUnknownCRS = errors.New("unsupported CRS")

// ErrNotHorizontal is the answer for an EPSG CRS without horizontal
// axes (a vertical CRS such as EPSG:5773, a geocentric one): features
// cannot be given, nor boxes read, in it.
var ErrNotHorizontal = errors.New("not a horizontal CRS: give a geographic or projected CRS")

// ParseCRS reads a CRS URI (http://www.opengis.net/def/crs/EPSG/0/{code},
// .../OGC/1.3/CRS84, or the [EPSG:code] safe-CURIE forms) and checks that
// PROJ knows it and that it has horizontal axes (ErrNotHorizontal when
// not): every door resolves its CRS parameters here.
func ParseCRS(s string) (CRS, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimPrefix(t, "["), "]")
	switch {
	case t == CRS84URI, strings.EqualFold(t, "OGC:CRS84"), t == "http://www.opengis.net/def/crs/OGC/0/CRS84":
		return CRS{}, nil
	}
	var code string
	switch {
	case strings.HasPrefix(t, epsgPrefix):
		code = t[len(epsgPrefix):]
	case len(t) > 5 && strings.EqualFold(t[:5], "EPSG:"):
		code = t[5:]
	default:
		return CRS{}, errUnknownCRS
	}
	n, err := strconv.Atoi(code)
	if err != nil || n <= 0 || n > 1<<30 {
		return CRS{}, errUnknownCRS
	}
	switch crsinfo.KindOf(n) {
	case crsinfo.Unknown:
		return CRS{}, errUnknownCRS
	case crsinfo.Other:
		return CRS{}, ErrNotHorizontal
	}
	return CRS{EPSG: n}, nil
}

// Transformer converts coordinates between CRS84 and one CRS, in each
// CRS's own axis order (Forward, Inverse, InverseBounds). It is not safe
// for concurrent use: one per request.
type Transformer struct{ *gdal.Transform }

// NewTransformer returns the transformer from CRS84 to c; Close it.
func NewTransformer(c CRS) (*Transformer, error) {
	t, err := gdal.NewTransform(c.EPSG)
	if errors.Is(err, gdal.ErrUnknownEPSG) {
		return nil, errUnknownCRS
	}
	if err != nil {
		return nil, err
	}
	return &Transformer{t}, nil
}

// IsTransformError reports whether err is coordinates outside a CRS's
// domain (the caller's choice of CRS, a 400).
func IsTransformError(err error) bool { return errors.Is(err, gdal.ErrOutsideDomain) }
