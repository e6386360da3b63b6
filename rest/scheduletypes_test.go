package rest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/remote/s3source/s3test"
	"github.com/geopub/geopub/internal/remote/smbsource/smbtest"
)

// One tick of the scheduler fires a real scan of every remote type at
// once: a PostgreSQL database, a WFS (MapServer), an ArcGIS REST server
// (Koop), an object store (versitygw) and a file share (Samba), each with
// a scan_schedule made due after its first scan and a change made on its
// server, which the scheduled scan counts.
func TestScanScheduleFiresEveryRemoteType(t *testing.T) {
	s3 := s3test.Start(t)
	smb := smbtest.Start(t)
	run := 0
	eachTicking(t, func(t *testing.T, e *env) {
		run++
		ctx := t.Context()
		pub := e.NewUser(t, "Publisher")
		db, conn := pgScratch(t)
		pgExec(t, conn, "CREATE TABLE towns (id int, geom geometry(Point, 4326)); INSERT INTO towns VALUES (1, 'SRID=4326;POINT(174 -41)')")
		wfsURL, wfsWrite := wfsServer(t)
		arcURL, arcWrite := arcgisServer(t)
		bucket := fmt.Sprintf("scheduled-%d", run)
		s3.CreateBucket(t, bucket)
		s3.Put(t, bucket, "data/roads.geojson", []byte(fixtureFiles["roads.geojson"]))
		folder := fmt.Sprintf("scheduled%d", run)
		smb.Write(t, folder+"/roads.geojson", []byte(fixtureFiles["roads.geojson"]))

		bodies := map[string]map[string]any{
			"postgres": {"url_remote": "postgresql://127.0.0.1:5432/" + db,
				"options": map[string]any{"username": "postgres", "password": pgSourcePassword, "ssl_verify": false}},
			"wfs":    {"url_remote": wfsURL, "options": map[string]any{"username": "reader", "password": wfsSourcePassword}},
			"arcgis": {"url_remote": arcURL},
			"s3": {"url_remote": "s3://" + bucket + "/data",
				"options": map[string]any{"endpoint": s3.Endpoint, "region": "us-east-1", "username": s3test.AccessKey, "password": s3test.SecretKey}},
			"cifs": {"url_remote": smb.URL(folder), "options": map[string]any{"username": smb.User, "password": smbtest.Password}},
		}
		ids := map[string]int{}
		for typ, body := range bodies {
			body["type"], body["title"], body["scan_schedule"] = typ, "Scheduled "+typ, "@daily"
			ids[typ] = doJSON[sourceRecord](t, e, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: body}, http.StatusCreated).ID
		}
		for typ, id := range ids {
			if sc := waitScan(t, e, pub.Key, id); sc.Status != "completed" {
				t.Fatalf("%s: first scan %+v", typ, sc)
			}
		}

		// A change on every server, then every schedule due at once.
		pgExec(t, conn, "INSERT INTO towns VALUES (2, 'SRID=4326;POINT(175 -42)')")
		wfsWrite(26)
		arcWrite(26)
		s3.Put(t, bucket, "data/more/dunedin.geojson", []byte(fixtureFiles["roads.geojson"]))
		smb.Write(t, folder+"/more/dunedin.geojson", []byte(fixtureFiles["roads.geojson"]))
		due := time.Now().Add(-time.Second)
		e.Store.Client.Source.Update().Where(source.IDIn(values(ids)...)).SetNextScanAt(due).ExecX(ctx)

		waitFor(t, "the scheduled scans", func() bool {
			return e.Store.Client.Scan.Query().Where(scan.SourceIDIn(values(ids)...)).CountX(ctx) == 2*len(ids)
		})
		for typ, id := range ids {
			sc := waitScan(t, e, pub.Key, id)
			changed := sc.ChangeCounts["added"] + sc.ChangeCounts["updated"]
			if sc.Status != "completed" || changed != 1 {
				t.Errorf("%s: scheduled scan %+v", typ, sc)
			}
			if row := e.Store.Client.Source.GetX(ctx, id); row.NextScanAt == nil || !row.NextScanAt.After(time.Now()) {
				t.Errorf("%s: next scan at %v", typ, row.NextScanAt)
			}
		}
	})
}

func values(m map[string]int) []int {
	out := make([]int, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
