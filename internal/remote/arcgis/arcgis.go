// Package arcgis reads ArcGIS REST services (the GeoServices REST API) as
// a remote.Service: from a .../rest/services URL it walks the folders
// (all, or options.folders) and their MapServer and FeatureServer
// services; each layer and table is a datasource, described by its own
// JSON (fields, geometry type, spatial reference, extent) and a
// returnCountOnly query, and copied by paging queries with
// resultOffset/resultRecordCount where the layer supports pagination,
// else by batches of object ids.
package arcgis

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/pagefile"
)

// Format is the MIME type recorded for ArcGIS datasources.
const Format = "application/x-esri-geoservices"

// maxServices bounds the services one scan walks.
const maxServices = 2000

// Kind is the ArcGIS REST source kind.
type Kind struct{}

var _ remote.Service = Kind{}

// server is one .../rest/services endpoint.
type server struct {
	hc    *http.Client
	base  *url.URL // ends in /rest/services, no query
	token string
}

func connect(ctx context.Context, c remote.Conn) (*server, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the source URL is not an http or https URL")
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(strings.ToLower(u.Path), "/rest/services") {
		return nil, fmt.Errorf("the source URL must end in /rest/services")
	}
	s := &server{base: u, hc: c.Fetch.HTTPClient(fetch.Options{Username: c.Username, Password: c.Password, SSLVerify: c.SSLVerify}, u)}
	if c.Username != "" && c.Password != "" {
		if err := s.login(ctx, c.Username, c.Password); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// at is the URL of rel (slash separated, under /rest/services) with the
// query params, f=json and the token added.
func (s *server) at(rel string, params url.Values) *url.URL {
	u := *s.base
	if rel != "" {
		u.Path = u.Path + "/" + strings.Trim(rel, "/")
	}
	q := url.Values{}
	for k, v := range params {
		q[k] = v
	}
	if q.Get("f") == "" {
		q.Set("f", "json")
	}
	if s.token != "" {
		q.Set("token", s.token)
	}
	u.RawQuery = q.Encode()
	return &u
}

// apiError is the error an ArcGIS server answers with, often with 200 OK.
type apiError struct {
	Error *struct {
		Code    int      `json:"code"`
		Message string   `json:"message"`
		Details []string `json:"details"`
	} `json:"error"`
}

// getJSON fetches a JSON document into v.
func (s *server) getJSON(ctx context.Context, u *url.URL, v any) error {
	body, _, err := pagefile.GetBytes(ctx, s.hc, u, pagefile.MaxDocument)
	if se, ok := err.(*pagefile.StatusError); ok {
		if aerr := errorOf([]byte(se.Body)); aerr != nil {
			return se.With(aerr)
		}
	}
	if err != nil {
		return err
	}
	if aerr := errorOf(body); aerr != nil {
		return aerr
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the server's answer is not the JSON expected: %s", clip(err.Error(), 200))
	}
	return nil
}

// errorOf returns the server's error when body is one, else nil.
func errorOf(body []byte) error {
	var e apiError
	if json.Unmarshal(body, &e) != nil || e.Error == nil {
		return nil
	}
	msg := e.Error.Message
	if len(e.Error.Details) > 0 && !slices.Contains(e.Error.Details, msg) {
		msg += " (" + strings.Join(e.Error.Details, "; ") + ")"
	}
	return fmt.Errorf("the server answered with error %d: %s", e.Error.Code, clip(strings.Join(strings.Fields(msg), " "), 300))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// catalog is a services directory page (the root or a folder).
type catalog struct {
	Folders  []string `json:"folders"`
	Services []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"services"`
}

// service is a MapServer or FeatureServer service to read.
type service struct{ name, typ string }

func (sv service) path() string { return sv.name + "/" + sv.typ }

// services walks the root and the folders (only those named, when
// folders is not empty).
func (s *server) services(ctx context.Context, folders []string, note func(string)) ([]service, error) {
	var root catalog
	if err := s.getJSON(ctx, s.at("", nil), &root); err != nil {
		return nil, fmt.Errorf("services directory: %w", err)
	}
	var out []service
	add := func(c catalog) {
		for _, sv := range c.Services {
			if (sv.Type == "MapServer" || sv.Type == "FeatureServer") && validName(sv.Name) && len(out) < maxServices {
				out = append(out, service{name: sv.Name, typ: sv.Type})
			}
		}
	}
	walk := root.Folders
	if len(folders) == 0 {
		add(root)
	} else {
		walk = nil
		for _, f := range folders {
			f = strings.Trim(f, "/")
			if !slices.Contains(root.Folders, f) {
				note("  Folder not found on the server: " + clip(f, 200))
				continue
			}
			walk = append(walk, f)
		}
	}
	for _, f := range walk {
		if !validName(f) {
			continue
		}
		var c catalog
		if err := s.getJSON(ctx, s.at(f, nil), &c); err != nil {
			note(fmt.Sprintf("  Skipped folder %s: %v", clip(f, 200), err))
			continue
		}
		add(c)
	}
	return out, nil
}

// validName accepts a service or folder name that stays a path below
// /rest/services.
func validName(n string) bool {
	if n == "" || len(n) > 500 || strings.ContainsAny(n, "?#\\\x00") {
		return false
	}
	clean := path.Clean("/" + n)
	return clean == "/"+n && !strings.Contains(n, "..")
}

// CheckURL checks a source's url_remote: an http or https URL ending in
// /rest/services.
func (Kind) CheckURL(u *url.URL) error {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		!strings.HasSuffix(strings.ToLower(strings.TrimRight(u.Path, "/")), "/rest/services") {
		return userError("Enter the URL of the ArcGIS services directory, ending in /rest/services, such as https://example.com/arcgis/rest/services.")
	}
	return nil
}

// userError is a message written for the user, as CheckURL returns.
type userError string

func (e userError) Error() string { return string(e) }
