package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	cr "github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/metadata"
)

// linkedServices are the services records link to; the others deliver
// nothing a harvester can follow.
var linkedServices = []string{"wfs", "tiles", "wmts", "export", "csw"}

// completeRecords gives page records what rendering needs: the services
// the caller may use, the export formats, documents' downloads, absolute
// party URLs and the links under origin.
func (r *Resolver) completeRecords(ctx context.Context, recs []cr.Record, origin string) error {
	if len(recs) == 0 {
		return nil
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return err
	}
	o := strings.TrimRight(origin, "/")
	var owners []access.ServiceOwner
	for i := range recs {
		if owner, ok := recordOwner(&recs[i]); ok {
			owners = append(owners, owner)
		}
	}
	usable, err := v.UsableServices(ctx, r.Client, owners, linkedServices)
	if err != nil {
		return err
	}
	for i := range recs {
		rec := &recs[i]
		if owner, ok := recordOwner(rec); ok {
			rec.Services = usable[owner.Kind][owner.ID]
		}
		rec.Formats = recordFormats(rec, o)
		if strings.HasPrefix(rec.Publisher.URL, "/") {
			rec.Publisher.URL = o + rec.Publisher.URL
		}
		rec.Contact = rec.Publisher
		rec.FillLinks(o)
	}
	return nil
}

// recordOwner is a record's dataset as a service owner; documents own no
// services.
func recordOwner(rec *cr.Record) (access.ServiceOwner, bool) {
	o := access.ServiceOwner{ID: rec.ID, Published: true}
	if rec.GroupID != 0 {
		g := rec.GroupID
		o.Group = &g
	}
	switch rec.Type {
	case cr.Layer:
		o.Kind, o.Type = access.KindLayer, dataservices.Layer
	case cr.Table:
		o.Kind, o.Type = access.KindLayer, dataservices.Table
	case cr.Set:
		o.Kind, o.Type = access.KindSet, dataservices.Set
	case cr.Item:
		o.Kind, o.Type = access.KindCatalogItem, dataservices.CatalogItem
	default:
		return o, false
	}
	return o, true
}

// recordFormats are the downloads of a record: a layer's export formats
// when the caller may export it (started at the exports endpoint), a
// document's file.
func recordFormats(rec *cr.Record, origin string) []cr.Format {
	switch rec.Type {
	case cr.Document:
		return []cr.Format{{Name: "the original file", MediaType: "application/octet-stream",
			URL: fmt.Sprintf("%s/services/api/v1.x/documents/%d/versions/%d/download/", origin, rec.ID, rec.VersionID)}}
	case cr.Layer, cr.Table:
	default:
		return nil
	}
	if !slices.Contains(rec.Services, "export") {
		return nil
	}
	kind := exportfile.KindVector
	switch {
	case rec.Type == cr.Table:
		kind = exportfile.KindTable
	case rec.Kind == "raster":
		kind = exportfile.KindRaster
	case rec.Kind == "grid":
		kind = exportfile.KindGrid
	}
	var out []cr.Format
	for _, f := range exportfile.Formats(kind) {
		out = append(out, cr.Format{Name: f.Display, MediaType: f.MIME, URL: origin + "/services/api/v1.x/exports/", Export: true})
	}
	return out
}

// applyRecordMetadata lets each record's uploaded metadata document speak
// for it: its title, abstract, keywords and box replace the version's
// where it gives them, and an ISO document is kept for the full answer.
func (r *Resolver) applyRecordMetadata(ctx context.Context, recs []describedRecord) error {
	byKind := map[string][]int{}
	for _, d := range recs {
		k := metadataKind(d.rec.Type)
		byKind[k] = append(byKind[k], d.rec.VersionID)
	}
	type key struct {
		kind    string
		version int
	}
	docs := map[key]int{}
	var all []*metadataRow
	for kind, ids := range byKind {
		rows, err := r.Client.MetadataDocument.Query().Where(metadatadocument.DatasetKind(kind), metadatadocument.VersionIDIn(ids...)).All(ctx)
		if err != nil {
			return err
		}
		for _, row := range rows {
			docs[key{kind, row.VersionID}] = len(all)
			all = append(all, &metadataRow{row.Format.String(), row.XML, row.Title, row.Abstract, row.Keywords, row.Bbox})
		}
	}
	for i := range recs {
		rec := &recs[i].rec
		at, ok := docs[key{metadataKind(rec.Type), rec.VersionID}]
		if !ok {
			continue
		}
		d := all[at]
		if d.title != "" {
			rec.Title = d.title
		}
		if d.abstract != "" {
			rec.Abstract = d.abstract
		}
		if len(d.keywords) > 0 {
			rec.Keywords = d.keywords
		}
		if len(d.bbox) == 4 {
			rec.BBox = d.bbox
		}
		if d.format == string(metadata.ISO) {
			rec.ISO, rec.ISOFormat = []byte(d.xml), isoFlavour(d.xml)
			// The stored columns have no time; the document has.
			if s, err := metadata.Parse(rec.ISO); err == nil {
				rec.TimeStart, rec.TimeEnd = s.TimeStart, s.TimeEnd
			}
		}
	}
	return nil
}

type metadataRow struct {
	format, xml, title, abstract string
	keywords                     []string
	bbox                         []float64
}

// metadataKind is how metadata documents name a record type's datasets.
func metadataKind(t cr.Type) string {
	switch t {
	case cr.Layer, cr.Table:
		return metadata.KindLayer
	case cr.Item:
		return metadata.KindItem
	}
	return string(t)
}

// isoFlavour tells ISO 19139 from ISO 19115-3 by the root's namespace.
func isoFlavour(doc string) string {
	head := doc
	if len(head) > 4096 {
		head = head[:4096]
	}
	if strings.Contains(head, "http://standards.iso.org/iso/19115/-3/mdb/") {
		return "19115-3"
	}
	return "19139"
}
