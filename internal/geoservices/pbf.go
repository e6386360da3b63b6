package geoservices

import (
	"io"

	"github.com/geopub/geopub/internal/ogcfeatures"
)

// WritePBF writes a page as an Esri FeatureCollectionPBuffer.
func WritePBF(w io.Writer, c *ogcfeatures.Collection, q *Query, p Page) error {
	return BadRequest("f=pbf is not served yet")
}

// WritePBFCount writes a count as an Esri FeatureCollectionPBuffer.
func WritePBFCount(w io.Writer, n int64) error { return BadRequest("f=pbf is not served yet") }

// WritePBFIDs writes object ids as an Esri FeatureCollectionPBuffer.
func WritePBFIDs(w io.Writer, ids []int64) error { return BadRequest("f=pbf is not served yet") }
