package rest

import (
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/metadata"
)

// metadataSource finds the metadata of the version a request names: the
// document (nil when none) and the version's API path, ending in "/".
// Access checks happen in the resolvers it calls.
type metadataSource func(r *http.Request) (*ent.MetadataDocument, string, error)

// metadataSink stores an uploaded document for the version a request
// names and returns it with the version's API path.
type metadataSink func(r *http.Request, xml string) (*ent.MetadataDocument, string, error)

// metadataRoutes serves a version's metadata under versionPath:
//
//	POST  …/metadata/          raw XML (text/xml or application/xml): 201 {url, url_html} + Location
//	GET   …/metadata/          the document as uploaded (text/xml); ?format=json: the simplified form
//	GET   …/metadata/{format}/ iso, fgdc: the document when in that format, else 404;
//	                           dc: the document when Dublin Core, else a rendering of its simplified form
//	GET   …/metadata/simple/   the simplified form as JSON
func (a *API) metadataRoutes(r chi.Router, versionPath string, get metadataSource, put metadataSink) {
	p := versionPath + "/metadata"
	r.Post(p, a.handle(a.uploadMetadata(put)))
	r.Get(p, a.handle(a.getMetadata(get, "")))
	r.Get(p+"/simple", a.handle(a.getMetadata(get, "json")))
	for _, f := range metadata.Formats {
		r.Get(p+"/"+string(f), a.handle(a.getMetadata(get, f)))
	}
}

// metadataRefs is the `metadata` field of a dataset: the URLs of the
// native document, of the format it is in, and of its Dublin Core form.
func (l links) metadataRefs(versionPath string, d *ent.MetadataDocument) any {
	if d == nil {
		return nil
	}
	base := l.api("%smetadata/", versionPath)
	return map[string]string{"native": base, string(d.Format): base + string(d.Format) + "/", "dc": base + "dc/"}
}

// metadataSimpleJSON is the simplified form of a metadata document.
type metadataSimpleJSON struct {
	Format    string    `json:"format"`
	Title     string    `json:"title"`
	Abstract  string    `json:"abstract"`
	Keywords  []string  `json:"keywords"`
	BBox      []float64 `json:"bbox"`
	Extent    any       `json:"extent"`
	Native    string    `json:"native"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (a *API) uploadMetadata(put metadataSink) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		xml, err := readXML(r)
		if err != nil {
			return err
		}
		_, vp, err := put(r, xml)
		if err != nil {
			return err
		}
		l := a.links(r)
		u := l.api("%smetadata/", vp)
		w.Header().Set("Location", u)
		writeJSON(w, http.StatusCreated, map[string]string{"url": u, "url_html": l.html("%smetadata/", vp)})
		return nil
	}
}

// getMetadata serves the document in format f ("" native, "json" the
// simplified form).
func (a *API) getMetadata(get metadataSource, format metadata.Format) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f := format
		if f == "" {
			switch format := queryOf(r).strPtr("format"); {
			case format == nil || *format == "" || *format == "xml":
			case *format == "json":
				f = "json"
			default:
				return apperr.Field("format", "Select a valid choice: xml (the default) or json; other renderings are not available.")
			}
		}
		d, vp, err := get(r)
		if err != nil {
			return err
		}
		if d == nil {
			return apperr.New(apperr.NotFound, "This version has no metadata.")
		}
		switch f {
		case "":
			writeXML(w, d.XML)
		case "json":
			writeJSON(w, http.StatusOK, metadataSimpleJSON{
				Format: string(d.Format), Title: d.Title, Abstract: d.Abstract, Keywords: nonNil(d.Keywords),
				BBox: d.Bbox, Extent: extentPolygon(d.Bbox), Native: a.links(r).api("%smetadata/", vp), UpdatedAt: d.UpdatedAt,
			})
		default:
			xml, ok := graph.MetadataIn(d, f)
			if !ok {
				return apperr.New(apperr.NotFound, "The metadata of this version is %s, not %s.", d.Format, f)
			}
			writeXML(w, xml)
		}
		return nil
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// readXML reads a raw XML body, sent as text/xml or application/xml (or
// a +xml type), of at most metadata.MaxSize bytes.
func readXML(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "text/xml" && mt != "application/xml" && !strings.HasSuffix(mt, "+xml")) {
		return "", apperr.New(apperr.Invalid, "Unsupported media type \"%s\": send the metadata document as text/xml or application/xml.", ct)
	}
	if err := limitBody(r, metadata.MaxSize); err != nil {
		return "", err
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		if tl := bodyError(err); tl != nil {
			return "", tl
		}
		return "", apperr.New(apperr.Invalid, "Could not read the request body: %s", err)
	}
	return string(b), nil
}

func writeXML(w http.ResponseWriter, xml string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, xml)
}
