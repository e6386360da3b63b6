package ogc

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/smalldata"
	"github.com/geopub/geopub/internal/usage"
)

// SmallDataPath is where the small-data service answers:
//
//	/services/small-data/v1/item={id}/                            the files (JSON)
//	/services/small-data/v1/item={id}/{document_id}/{filename}    one file (Range, ETag)
//
// {id} is the catalog item's id as the REST API writes it (c12) or its
// number (12).
const SmallDataPath = "/services/small-data/v1"

// SmallData is the door of the small-data service.
type SmallData struct {
	svc     *smalldata.Service
	baseURL string
	logger  *slog.Logger
}

// NewSmallData returns the door over svc; baseURL, when set, is the
// public origin of its links (else the request's own).
func NewSmallData(svc *smalldata.Service, baseURL string, logger *slog.Logger) *SmallData {
	if logger == nil {
		logger = slog.Default()
	}
	return &SmallData{svc: svc, baseURL: strings.TrimRight(baseURL, "/"), logger: logger}
}

var smallDataScopes = []string{smalldata.Scope}

// Mount adds the routes to r, which must run the auth middleware that
// accepts ?key=.
func (s *SmallData) Mount(r chi.Router) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.MethodFunc(m, SmallDataPath+"/{item}", s.list)
		r.MethodFunc(m, SmallDataPath+"/{item}/", s.list)
		r.MethodFunc(m, SmallDataPath+"/{item}/{document}/{filename}", s.file)
	}
}

// itemOwner parses item=c{n} or item={n}.
func itemOwner(seg string) (int, bool) {
	kind, num, found := strings.Cut(seg, "=")
	if !found || kind != "item" {
		return 0, false
	}
	num = strings.TrimPrefix(num, "c")
	id, err := strconv.Atoi(num)
	if err != nil || id <= 0 || strconv.Itoa(id) != num {
		return 0, false
	}
	return id, true
}

// start checks the scope and the item segment; ok is false when it
// already answered.
func (s *SmallData) start(w http.ResponseWriter, r *http.Request) (id int, p auth.Principal, ok bool) {
	auth.SetAcceptedScopes(w.Header(), smallDataScopes)
	id, ok = itemOwner(chi.URLParam(r, "item"))
	if !ok {
		fail(w, http.StatusNotFound, "Not found: small data is at "+SmallDataPath+"/item={id}/.")
		return 0, p, false
	}
	p = auth.FromContext(r.Context())
	if !p.HasScope(smalldata.Scope) {
		fail(w, http.StatusUnauthorized, "This API key lacks the "+smalldata.Scope+" scope.")
		return 0, p, false
	}
	return id, p, true
}

// refuse answers an error as the other services do: 404 (401 to
// anonymous callers) for what the caller may not use, 403 for a listed
// file they may not download or that is too large to serve here.
func (s *SmallData) refuse(w http.ResponseWriter, r *http.Request, p auth.Principal, id int, err error) {
	switch {
	case errors.Is(err, smalldata.ErrNotFound):
		if !p.Authenticated() {
			fail(w, http.StatusUnauthorized, "Authentication credentials were not provided.")
			return
		}
		fail(w, http.StatusNotFound, "Catalog item c"+strconv.Itoa(id)+" has no such small data you may use.")
	case errors.Is(err, smalldata.ErrNoDownload):
		fail(w, http.StatusForbidden, "You need download permission on this document to download its file.")
	default:
		internalError(w, r, s.logger, "small data failed", err)
	}
}

func (s *SmallData) origin(r *http.Request) string {
	if s.baseURL != "" {
		return s.baseURL
	}
	return forwarded.Origin(r)
}

// fileDoc is one file in the list.
type fileDoc struct {
	Document  int       `json:"document"`
	Name      string    `json:"name"`
	Size      int64     `json:"size"`
	MediaType string    `json:"media_type"`
	Modified  time.Time `json:"modified"`
	// URL is where this service serves it; null when it is too large or
	// the caller may not download it.
	URL *string `json:"url"`
	// TooLarge files are downloaded through DocumentDownload.
	TooLarge         bool   `json:"too_large"`
	Downloadable     bool   `json:"downloadable"`
	DocumentDownload string `json:"document_download"`
}

func (s *SmallData) list(w http.ResponseWriter, r *http.Request) {
	id, p, ok := s.start(w, r)
	if !ok {
		return
	}
	fs, err := s.svc.Files(r.Context(), p, id)
	if err != nil {
		s.refuse(w, r, p, id, err)
		return
	}
	origin := s.origin(r)
	files := make([]fileDoc, len(fs))
	for i, f := range fs {
		d := fileDoc{Document: f.DocumentID, Name: f.Name, Size: f.Size, MediaType: f.MediaType, Modified: f.Modified.UTC(),
			TooLarge: f.TooLarge, Downloadable: f.Downloadable,
			DocumentDownload: origin + "/services/api/documents/" + strconv.Itoa(f.DocumentID) + "/download/"}
		if f.Downloadable && !f.TooLarge {
			u := origin + SmallDataPath + "/item=c" + strconv.Itoa(id) + "/" + strconv.Itoa(f.DocumentID) + "/" + url.PathEscape(f.Name)
			d.URL = &u
		}
		files[i] = d
	}
	doc := map[string]any{"item": "c" + strconv.Itoa(id), "max_file_bytes": s.svc.MaxFileBytes(), "files": files}
	h := w.Header()
	h.Set("Cache-Control", cacheControl(p))
	if r.Method == http.MethodHead {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		return
	}
	writeJSONDoc(w, doc)
}

func (s *SmallData) file(w http.ResponseWriter, r *http.Request) {
	id, p, ok := s.start(w, r)
	if !ok {
		return
	}
	raw := chi.URLParam(r, "document")
	did, err := strconv.Atoi(raw)
	if err != nil || did <= 0 || strconv.Itoa(did) != raw {
		fail(w, http.StatusNotFound, "Not found: a file is at "+SmallDataPath+"/item={id}/{document_id}/{filename}.")
		return
	}
	f, err := s.svc.File(r.Context(), p, id, did)
	if errors.Is(err, smalldata.ErrTooLarge) {
		fail(w, http.StatusForbidden, "This file is "+strconv.FormatInt(f.Size, 10)+" bytes, above the small-data limit of "+
			strconv.FormatInt(s.svc.MaxFileBytes(), 10)+": download it from "+s.origin(r)+"/services/api/documents/"+strconv.Itoa(did)+"/download/.")
		return
	}
	if err != nil {
		s.refuse(w, r, p, id, err)
		return
	}
	if name, _ := url.PathUnescape(chi.URLParam(r, "filename")); name != f.Name {
		fail(w, http.StatusNotFound, "Document "+raw+"'s file is named "+strconv.Quote(f.Name)+".")
		return
	}
	rc, err := s.svc.Open(r.Context(), f)
	if err != nil {
		internalError(w, r, s.logger, "small data failed", err)
		return
	}
	defer rc.Close()
	h := w.Header()
	h.Set("Content-Type", f.MediaType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
	h.Set("ETag", `"dv`+strconv.Itoa(f.VersionID())+`"`)
	h.Set("Cache-Control", cacheControl(p))
	usage.Served(w, usage.CatalogItem, id, usage.SmallData, usage.Amounts{Downloads: 1})
	http.ServeContent(w, r, "", f.Modified, rc)
}

// writeJSONDoc writes v as a 200 JSON answer.
func writeJSONDoc(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := jsonEncoder(w)
	_ = enc.Encode(v)
}
