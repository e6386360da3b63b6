package ogc

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/rastertiles"
	"github.com/geopub/geopub/internal/usage"
	"github.com/geopub/geopub/internal/vectortiles"
)

// WMTSPath is where WMTS 1.0.0 is served, one service per layer or set:
//
//	/services/wmts/1.0.0/layer/{id}/WMTSCapabilities.xml   RESTful GetCapabilities
//	/services/wmts/1.0.0/layer/{id}?SERVICE=WMTS&REQUEST=GetTile&...   KVP GetCapabilities and GetTile
//	/services/wmts/1.0.0/set/{id}/WMTSCapabilities.xml
//
// and the same under /services;key={token}/wmts/1.0.0/... (the form DP
// uses). The layer is named layer-{id} (set-{id}), its tile matrix set is
// EPSG:3857, and its RESTful tiles are the XYZ image tiles (RasterTiles).
const WMTSPath = "/services/wmts/1.0.0"

// wmtsOwner checks the {kind}/{id} segments and the caller's scope; ok
// is false when it already answered.
func wmtsOwner(w http.ResponseWriter, r *http.Request) (kind string, id int, ok bool) {
	auth.SetAcceptedScopes(w.Header(), acceptedScopes)
	allowAnyOrigin(w.Header())
	kind, num := chi.URLParam(r, "kind"), chi.URLParam(r, "id")
	id, err := strconv.Atoi(num)
	if (kind != "layer" && kind != "set") || err != nil || id <= 0 || strings.TrimLeft(num, "0123456789") != "" {
		fail(w, http.StatusNotFound, "Not found: WMTS is at "+WMTSPath+"/layer/{id}/WMTSCapabilities.xml or "+WMTSPath+"/set/{id}/WMTSCapabilities.xml")
		return "", 0, false
	}
	if p := auth.FromContext(r.Context()); !p.HasScope(auth.ScopeTiles) {
		fail(w, http.StatusUnauthorized, "This API key lacks the tiles scope.")
		return "", 0, false
	}
	return kind, id, true
}

func (t *RasterTiles) capabilities(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := wmtsOwner(w, r)
	if !ok {
		return
	}
	t.writeCapabilities(w, r, kind, id)
}

func (t *RasterTiles) writeCapabilities(w http.ResponseWriter, r *http.Request, kind string, id int) {
	src, p, ok := t.source(w, r, kind, id, rastertiles.ServiceWMTS)
	if !ok {
		return
	}
	self := "/wmts/1.0.0/" + kind + "/" + strconv.Itoa(id)
	links := rastertiles.WMTSLinks{
		Capabilities: keyedURL(r, t.baseURL, self+"/WMTSCapabilities.xml", false),
		KVP:          withQuery(keyedURL(r, t.baseURL, self, false), ""),
		Tile:         map[rastertiles.Format]string{},
	}
	for _, f := range rastertiles.Formats {
		u := keyedURL(r, t.baseURL, "/tiles/v1/"+kind+"="+strconv.Itoa(id)+"/{TileMatrix}/{TileCol}/{TileRow}."+f.Ext(), false)
		links.Tile[f] = withQuery(u, "style={Style}")
	}
	body, err := rastertiles.Capabilities(src, links)
	if err != nil {
		t.internal(w, r, err)
		return
	}
	writeDoc(w, r, p, "application/xml", "wmts-"+src.ETag+"-"+strconv.FormatUint(hashString(links.Capabilities), 36), body)
}

// kvp answers WMTS requests in key-value form: GetCapabilities and
// GetTile (parameter names in any case).
func (t *RasterTiles) kvp(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := wmtsOwner(w, r)
	if !ok {
		return
	}
	q := map[string]string{}
	for k, vs := range r.URL.Query() {
		if len(vs) > 0 {
			q[strings.ToUpper(k)] = vs[0]
		}
	}
	if s, ok := q["SERVICE"]; ok && !strings.EqualFold(s, "WMTS") {
		owsException(w, "InvalidParameterValue", "service", "SERVICE must be WMTS.")
		return
	}
	switch strings.ToLower(q["REQUEST"]) {
	case "getcapabilities":
		t.writeCapabilities(w, r, kind, id)
	case "gettile":
		t.getTile(w, r, kind, id, q)
	case "":
		owsException(w, "MissingParameterValue", "request", "REQUEST is missing: GetCapabilities or GetTile.")
	default:
		owsException(w, "OperationNotSupported", "request", "REQUEST must be GetCapabilities or GetTile.")
	}
}

func (t *RasterTiles) getTile(w http.ResponseWriter, r *http.Request, kind string, id int, q map[string]string) {
	for _, k := range []string{"LAYER", "TILEMATRIXSET", "TILEMATRIX", "TILEROW", "TILECOL"} {
		if q[k] == "" {
			owsException(w, "MissingParameterValue", strings.ToLower(k), k+" is missing.")
			return
		}
	}
	if q["LAYER"] != kind+"-"+strconv.Itoa(id) {
		owsException(w, "InvalidParameterValue", "layer", "This service has one layer: "+kind+"-"+strconv.Itoa(id)+".")
		return
	}
	if q["TILEMATRIXSET"] != rastertiles.TileMatrixSet {
		owsException(w, "InvalidParameterValue", "tilematrixset", "TILEMATRIXSET must be "+rastertiles.TileMatrixSet+".")
		return
	}
	f := rastertiles.PNG
	if s := q["FORMAT"]; s != "" {
		var ok bool
		if f, ok = rastertiles.ParseFormat(s); !ok {
			owsException(w, "InvalidParameterValue", "format", "FORMAT must be image/png, image/jpeg or image/webp.")
			return
		}
	}
	st, err := rastertiles.ParseStyle(q["STYLE"])
	if err != nil {
		owsException(w, "InvalidParameterValue", "style", err.Error())
		return
	}
	tile, err := vectortiles.ParseTile(q["TILEMATRIX"], q["TILECOL"], q["TILEROW"])
	if err != nil {
		owsException(w, "TileOutOfRange", "tilematrix", err.Error())
		return
	}
	t.serve(w, r, kind, id, tile, f, st, usage.WMTS)
}

// owsException writes an OWS 1.1 ExceptionReport with status 400.
func owsException(w http.ResponseWriter, code, locator, text string) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0"><ows:Exception exceptionCode="`)
	_ = xml.EscapeText(&b, []byte(code))
	b.WriteString(`" locator="`)
	_ = xml.EscapeText(&b, []byte(locator))
	b.WriteString(`"><ows:ExceptionText>`)
	_ = xml.EscapeText(&b, []byte(text))
	b.WriteString("</ows:ExceptionText></ows:Exception></ows:ExceptionReport>\n")
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Del("ETag")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(b.String()))
}
