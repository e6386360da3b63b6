package scanning

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/metadata"
)

// MetadataKind is the dataset kind a datasource's metadata document is
// filed under; its dataset and version ids are both the datasource's id.
const MetadataKind = "datasource"

// keepMetadata stores the XML file rel of the scanned tree (found beside
// datasource id, same base name) as its metadata document, replacing any;
// with rel empty, or a file that is not metadata (noted in the log), the
// datasource has none.
func keepMetadata(ctx context.Context, c *ent.Client, tree string, id int, rel string, userID int, note func(string)) error {
	drop := func() error {
		_, err := c.MetadataDocument.Delete().
			Where(metadatadocument.DatasetKind(MetadataKind), metadatadocument.VersionID(id)).Exec(ctx)
		return err
	}
	if rel == "" {
		return drop()
	}
	problem := "it could not be read"
	xml, err := readLimited(filepath.Join(tree, filepath.FromSlash(rel)), metadata.MaxSize)
	if errors.Is(err, errTooLarge) {
		problem = err.Error()
	}
	if err == nil {
		s, err := metadata.Parse(xml)
		if err == nil {
			return c.MetadataDocument.Create().
				SetDatasetKind(MetadataKind).SetDatasetID(id).SetVersionID(id).
				SetFormat(metadatadocument.Format(s.Format)).SetXML(string(xml)).
				SetTitle(s.Title).SetAbstract(s.Abstract).SetKeywords(s.Keywords).SetBbox(s.BBox).
				SetUploadedBy(userID).
				OnConflictColumns(metadatadocument.FieldDatasetKind, metadatadocument.FieldVersionID).
				UpdateNewValues().Exec(ctx)
		}
		problem = err.Error()
	}
	note(fmt.Sprintf("  Skipped metadata %s: %s", rel, problem))
	return drop()
}

// errTooLarge is a metadata file over metadata.MaxSize.
var errTooLarge = errors.New("the file is larger than the metadata size limit")

func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = errTooLarge
	}
	return b, err
}
