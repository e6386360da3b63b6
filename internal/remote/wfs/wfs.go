// Package wfs reads OGC Web Feature Services (versions 2.0.0 and 1.1.0)
// as a remote.Service: each feature type is a datasource, listed from
// the capabilities, its schema (DescribeFeatureType) and a hit count,
// and copied by paging through GetFeature with startIndex, as GeoJSON
// where the server offers it, else GML.
package wfs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/pagefile"
)

// The versions Geopub speaks, preferred first.
const (
	v20 = "2.0.0"
	v11 = "1.1.0"
)

// maxTypes bounds the feature types one scan describes.
const maxTypes = 2000

// Format is the MIME type recorded for WFS datasources.
const Format = "application/x-ogc-wfs"

// Kind is the WFS source kind.
type Kind struct{}

var _ remote.Service = Kind{}

// server is one WFS endpoint after version negotiation.
type server struct {
	hc      *http.Client
	base    *url.URL // the source URL without WFS request parameters
	version string
	caps    *capabilities
}

// wfsParams are the request parameters Geopub sets itself; the source
// URL's own are dropped (a version, though, pins the version spoken).
var wfsParams = []string{"service", "request", "version", "acceptversions", "typename", "typenames",
	"outputformat", "count", "maxfeatures", "startindex", "resulttype", "srsname"}

// connect negotiates the version: 2.0.0, else 1.1.0, unless the source
// URL names one.
func connect(ctx context.Context, c remote.Conn) (*server, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the source URL is not an http or https URL")
	}
	q := u.Query()
	versions := []string{v20, v11}
	for k, vs := range q {
		if strings.EqualFold(k, "version") && len(vs) > 0 {
			switch strings.TrimSpace(vs[0]) {
			case v20, "2.0":
				versions = []string{v20}
			case v11, "1.1":
				versions = []string{v11}
			default:
				return nil, fmt.Errorf("the source URL asks for WFS version %s; Geopub reads 2.0.0 and 1.1.0", clip(vs[0], 20))
			}
		}
		for _, p := range wfsParams {
			if strings.EqualFold(k, p) {
				q.Del(k)
			}
		}
	}
	u.RawQuery, u.Fragment = q.Encode(), ""
	s := &server{hc: c.Fetch.HTTPClient(fetch.Options{Username: c.Username, Password: c.Password, SSLVerify: c.SSLVerify}, u), base: u}
	var problems []string
	for _, v := range versions {
		s.version = v
		body, err := s.document(ctx, s.request("GetCapabilities", map[string]string{"ACCEPTVERSIONS": v}))
		if err != nil {
			if _, ok := err.(*pagefile.StatusError); !ok {
				return nil, fmt.Errorf("GetCapabilities: %w", err)
			}
			problems = append(problems, fmt.Sprintf("%s: %v", v, err))
			continue
		}
		caps, err := parseCapabilities(body)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", v, err))
			continue
		}
		if strings.HasPrefix(caps.Version, v[:3]) {
			s.caps = caps
			return s, nil
		}
		problems = append(problems, fmt.Sprintf("asked for %s, the server answered with version %s", v, clip(caps.Version, 20)))
	}
	return nil, fmt.Errorf("the server does not speak WFS 2.0.0 or 1.1.0 (%s)", strings.Join(problems, "; "))
}

// request is the URL of a WFS request of the negotiated version.
func (s *server) request(name string, params map[string]string) *url.URL {
	u := *s.base
	q := u.Query()
	q.Set("SERVICE", "WFS")
	q.Set("VERSION", s.version)
	q.Set("REQUEST", name)
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return &u
}

// typeParam is the name of the type-name parameter.
func (s *server) typeParam() string {
	if s.version == v20 {
		return "TYPENAMES"
	}
	return "TYPENAME"
}

// countParam is the name of the page-size parameter.
func (s *server) countParam() string {
	if s.version == v20 {
		return "COUNT"
	}
	return "MAXFEATURES"
}

// document fetches a small XML answer.
func (s *server) document(ctx context.Context, u *url.URL) ([]byte, error) {
	body, _, err := pagefile.GetBytes(ctx, s.hc, u, pagefile.MaxDocument)
	if se, ok := err.(*pagefile.StatusError); ok {
		if oerr := owsError([]byte(se.Body)); oerr != nil {
			return nil, se.With(oerr)
		}
	}
	return body, err
}

// featureType finds a type by name.
func (s *server) featureType(name string) (featureType, bool) {
	for _, t := range s.caps.Types {
		if t.Name == name {
			return t, true
		}
	}
	return featureType{}, false
}

// Discover lists the feature types.
func (Kind) Discover(ctx context.Context, c remote.Conn, note func(string)) ([]ingest.Datasource, error) {
	s, err := connect(ctx, c)
	if err != nil {
		return nil, err
	}
	note(fmt.Sprintf("WFS %s: %d feature type(s)", s.version, len(s.caps.Types)))
	if len(s.caps.Types) > maxTypes {
		note(fmt.Sprintf("  Only the first %d feature types are read", maxTypes))
		s.caps.Types = s.caps.Types[:maxTypes]
	}
	var out []ingest.Datasource
	var lastErr error
	for _, t := range s.caps.Types {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := s.describe(ctx, t, note)
		if err != nil {
			lastErr = err
			note(fmt.Sprintf("  Skipped %s: %v", clip(t.Name, 200), err))
			continue
		}
		out = append(out, d)
	}
	if len(out) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return out, nil
}

// describe reads one type's schema and count.
func (s *server) describe(ctx context.Context, t featureType, note func(string)) (ingest.Datasource, error) {
	ti, err := s.typeInfo(ctx, t)
	if err != nil {
		return ingest.Datasource{}, err
	}
	d := ingest.Datasource{
		Path: t.Name, Title: strings.TrimSpace(t.Title), DataType: ingest.TypeVector, Format: Format, Driver: "WFS",
		CRS: crsName(t.crs()), Extent: t.extent(),
	}
	if d.Title == "" {
		d.Title = local(t.Name)
	}
	count, exact, err := s.count(ctx, ti, true)
	if err != nil {
		return d, err
	}
	if !exact {
		note(fmt.Sprintf("  %s: the server caps its hit count; counted the first %d features", clip(t.Name, 200), count))
	}
	d.FeatureCount = count
	if ti.schema.GeometryField == "" {
		d.DataType, d.CRS, d.Extent = ingest.TypeTable, "", nil
	} else {
		d.GeometryField, d.GeometryType, d.NumDims = ti.schema.GeometryField, ti.schema.GeometryType, 2
		if d.GeometryType == "" && count > 0 {
			if d.GeometryType, err = s.sniff(ctx, ti); err != nil {
				return d, err
			}
		}
		d.Fields = append(d.Fields, ingest.Field{Name: d.GeometryField, Type: "geometry"})
	}
	d.Fields = append(d.Fields, ti.schema.Fields...)
	d.Fingerprint = Fingerprint(d)
	return d, nil
}

// Fingerprint is what says a feature type changed: WFS tells no edit
// time, so its schema, count, CRS and extent.
func Fingerprint(d ingest.Datasource) string {
	return pagefile.Fingerprint("wfs", d.Fields, d.FeatureCount, d.CRS, d.GeometryType, d.Extent)
}

// CheckURL checks a source's url_remote: an http or https URL whose query
// names, if any, a version Geopub reads.
func (Kind) CheckURL(u *url.URL) error {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return userError("Enter the http or https URL of the WFS service, such as https://example.com/geoserver/wfs.")
	}
	for k, vs := range u.Query() {
		if strings.EqualFold(k, "version") && len(vs) > 0 {
			switch strings.TrimSpace(vs[0]) {
			case v20, "2.0", v11, "1.1":
			default:
				return userError(fmt.Sprintf("Geopub reads WFS 2.0.0 and 1.1.0; remove version=%s from the URL.", clip(vs[0], 20)))
			}
		}
	}
	return nil
}

// userError is a message written for the user, as CheckURL returns.
type userError string

func (e userError) Error() string { return string(e) }
