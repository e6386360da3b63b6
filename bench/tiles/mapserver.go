package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// mapserv is MapServer's CGI program (Debian cgi-mapserver, which
// scripts/ensure-deps.sh installs).
const mapserv = "/usr/lib/cgi-bin/mapserv"

// mapfileTemplate serves the PostGIS copy's points and polygons tables
// through OGC API Features (and WFS). The layers' projection is a PROJ
// string: each CGI call starts MapServer afresh, and "init=epsg:4326"
// would make each read PROJ's database. TEMPLATE makes a layer
// queryable, which OGC API collections must be.
const mapfileTemplate = `MAP
  NAME "bench"
  EXTENT 166 -47 179 -34
  PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
  WEB
    METADATA
      "ows_title" "Geopub tile bench"
      "ows_enable_request" "*"
      "oga_enable_request" "*"
      "ows_srs" "EPSG:4326"
      "oga_onlineresource" "%[1]s/bench/ogcapi"
      "wfs_onlineresource" "%[1]s/bench?"
      "oga_max_limit" "1000"
    END
  END
%[2]s%[3]sEND
`

const mapLayerTemplate = `  LAYER
    NAME "%[1]s"
    TYPE %[2]s
    TEMPLATE "none"
    CONNECTIONTYPE POSTGIS
    CONNECTION "%[3]s"
    DATA "geom FROM %[1]s USING UNIQUE fid USING SRID=4326"
    PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
    METADATA
      "ows_title" "%[1]s"
      "gml_include_items" "all"
      "gml_featureid" "fid"
      "gml_types" "auto"
    END
  END
`

// startMapServer serves the PostGIS copy at conninfo through MapServer's
// CGI program on a loopback port, with the mapfile and MapServer's
// configuration written into dir; OGC API Features is at
// http://{addr}{prefix}/bench/ogcapi. It returns the address, the prefix
// and the server's stop.
func startMapServer(dir, conninfo string) (addr, prefix string, stop func(), err error) {
	if _, err := exec.LookPath(mapserv); err != nil {
		return "", "", nil, fmt.Errorf("MapServer is missing (%v): run bash scripts/ensure-deps.sh test", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, err
	}
	addr, prefix = ln.Addr().String(), "/ms"
	mapfile, conf := filepath.Join(dir, "bench.map"), filepath.Join(dir, "mapserver.conf")
	text := fmt.Sprintf(mapfileTemplate, "http://"+addr+prefix,
		fmt.Sprintf(mapLayerTemplate, "points", "POINT", conninfo),
		fmt.Sprintf(mapLayerTemplate, "polygons", "POLYGON", conninfo))
	if err := os.WriteFile(mapfile, []byte(text), 0o600); err != nil {
		ln.Close()
		return "", "", nil, err
	}
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("CONFIG\n  MAPS\n    \"bench\" %q\n  END\nEND\n", mapfile)), 0o600); err != nil {
		ln.Close()
		return "", "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", &cgi.Handler{Path: mapserv, Root: prefix, Env: []string{"MAPSERVER_CONFIG_FILE=" + conf}})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return addr, prefix, func() { _ = hs.Close() }, nil
}
