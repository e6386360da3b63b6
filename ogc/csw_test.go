package ogc_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/server/servertest"
)

func TestCSW(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newCSWFixture(t, e)
		t.Run("capabilities", func(t *testing.T) { testCSWCapabilities(t, f) })
		t.Run("getrecords", func(t *testing.T) { testCSWGetRecords(t, f) })
		t.Run("byid and domain", func(t *testing.T) { testCSWByID(t, f) })
		t.Run("permissions", func(t *testing.T) { testCSWPermissions(t, f) })
		t.Run("hostile", func(t *testing.T) { testCSWHostile(t, f) })
		t.Run("owslib", func(t *testing.T) { testCSWOWSLib(t, f) })
		t.Run("uploaded iso", func(t *testing.T) { testCSWUploadedISO(t, f) })
	})
}

func testCSWCapabilities(t *testing.T, f *cswFixture) {
	for _, v := range []string{"2.0.2", "3.0.0"} {
		r := f.get(t, "", "/", kvp("service", "CSW", "request", "GetCapabilities", "version", v))
		body := string(r.body)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", v, r.status, body)
		}
		for _, want := range []string{`version="` + v + `"`, `<ows:Operation name="GetRecords">`, `<ows:Operation name="GetDomain">`,
			`xlink:href="` + f.e.HTTP.URL + `/services/csw/"`, "http://www.isotc211.org/2005/gmd", "gmd:MD_Metadata", "CQL_TEXT", "BBOX"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s capabilities lack %s", v, want)
			}
		}
	}
	// POST, HEAD, and the per-dataset endpoint.
	r := f.post(t, "", "/", `<csw:GetCapabilities xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:ows="http://www.opengis.net/ows" service="CSW"><ows:AcceptVersions><ows:Version>2.0.2</ows:Version></ows:AcceptVersions></csw:GetCapabilities>`)
	if r.status != 200 || !strings.Contains(string(r.body), `<csw:Capabilities`) {
		t.Errorf("POST capabilities: %d %.200s", r.status, r.body)
	}
	if r := f.do(t, "", http.MethodHead, "/?"+kvp("service", "CSW", "request", "GetCapabilities"), "", nil); r.status != 200 || len(r.body) != 0 {
		t.Errorf("HEAD: %d %d bytes", r.status, len(r.body))
	}
	id := fmt.Sprintf("layer-%d", f.public[0])
	r = f.get(t, "", "/"+id+"/", kvp("service", "CSW", "request", "GetCapabilities", "version", "2.0.2"))
	if r.status != 200 || !strings.Contains(string(r.body), "/services/csw/"+id+"/") {
		t.Errorf("dataset capabilities: %d %.300s", r.status, r.body)
	}
	r = f.get(t, "", "/", kvp("service", "CSW", "request", "DescribeRecord", "version", "2.0.2", "typeName", "csw:Record"))
	if r.status != 200 || !strings.Contains(string(r.body), `name="SummaryRecord"`) {
		t.Errorf("DescribeRecord: %d %.300s", r.status, r.body)
	}
}

func testCSWGetRecords(t *testing.T, f *cswFixture) {
	base := []string{"service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record", "resultType", "results"}
	q := func(extra ...string) string { return kvp(append(slices.Clone(base), extra...)...) }

	t.Run("paging each record once", func(t *testing.T) {
		seen := map[string]int{}
		start, pages := 1, 0
		for start != 0 && pages < 10 {
			s := f.get(t, "", "/", q("startPosition", fmt.Sprint(start), "maxRecords", "5", "sortBy", "dc:title:A")).results(t)
			if s.Results.Matched != cswPublic+1 {
				t.Fatalf("matched %d", s.Results.Matched)
			}
			for _, r := range s.Results.Records {
				seen[r.Identifier]++
			}
			start, pages = s.Results.Next, pages+1
		}
		if len(seen) != cswPublic+1 || pages != 3 || seen[fmt.Sprintf("table-%d", f.table)] != 1 {
			t.Errorf("%d pages, seen %v", pages, seen)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s seen %d times", id, n)
			}
		}
	})

	t.Run("sort", func(t *testing.T) {
		s := f.get(t, "", "/", q("maxRecords", "3", "sortBy", "dc:title:D")).results(t)
		var titles []string
		for _, r := range s.Results.Records {
			titles = append(titles, r.Title)
		}
		if !slices.Equal(titles, []string{"Catalogue table", "Catalogue river 10", "Catalogue river 08"}) {
			t.Errorf("sorted %v", titles)
		}
	})

	t.Run("filter and cql", func(t *testing.T) {
		like := `<Filter xmlns="http://www.opengis.net/ogc"><And><PropertyIsLike wildCard="*" singleChar="?" escapeChar="\"><PropertyName>dc:title</PropertyName><Literal>*LAKE*</Literal></PropertyIsLike><BBOX><PropertyName>ows:BoundingBox</PropertyName><Envelope><lowerCorner>170 -44</lowerCorner><upperCorner>172.1 -41</upperCorner></Envelope></BBOX></And></Filter>`
		s := f.get(t, "", "/", q("constraintLanguage", "FILTER", "constraint_language_version", "1.1.0", "constraint", like, "maxRecords", "50")).results(t)
		// lakes are the odd ones; boxes start at 170 + i/2: i = 1 and 3 meet 170..172.1
		if s.Results.Matched != 2 || len(s.Results.Records) != 2 {
			t.Errorf("filter matched %d: %s", s.Results.Matched, s.Results.Records)
		}
		c := f.get(t, "", "/", q("constraintLanguage", "CQL_TEXT", "constraint", "dc:title LIKE '%lake%' AND BBOX(ows:BoundingBox, 170, -44, 172.1, -41)")).results(t)
		if c.Results.Matched != 2 {
			t.Errorf("CQL matched %d", c.Results.Matched)
		}
		// POST with the same filter, CSW 3.0 and FES.
		body := `<csw30:GetRecords xmlns:csw30="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0" service="CSW" version="3.0.0" maxRecords="20">
<csw30:Query typeNames="csw30:Record"><csw30:ElementSetName>full</csw30:ElementSetName><csw30:Constraint version="2.0.0"><fes:Filter><fes:PropertyIsLike wildCard="%" singleChar="_" escapeChar="\"><fes:ValueReference>csw:AnyText</fes:ValueReference><fes:Literal>%river%</fes:Literal></fes:PropertyIsLike></fes:Filter></csw30:Constraint></csw30:Query></csw30:GetRecords>`
		p := f.post(t, "", "/", body).results(t)
		if p.Results.Matched != cswPublic/2 || p.Results.Set != "full" || !strings.Contains(p.XMLName.Space, "csw/3.0") {
			t.Errorf("POST 3.0 matched %d, %+v", p.Results.Matched, p.XMLName)
		}
		if len(p.Results.Records) > 0 && len(p.Results.Records[0].Refs) == 0 {
			t.Errorf("full records without references")
		}
	})

	t.Run("element sets and schemas", func(t *testing.T) {
		for set, el := range map[string]string{"brief": "BriefRecord", "summary": "SummaryRecord", "full": "Record"} {
			s := f.get(t, "", "/", q("elementSetName", set, "maxRecords", "2")).results(t)
			if len(s.Results.Records) != 2 || s.Results.Records[0].XMLName.Local != el {
				t.Errorf("%s: %+v", set, s.Results.Records)
			}
			if set == "brief" && s.Results.Records[0].Abstract != "" {
				t.Errorf("brief with an abstract")
			}
		}
		for schema, root := range map[string]string{"http://www.isotc211.org/2005/gmd": "<gmd:MD_Metadata ", "http://standards.iso.org/iso/19115/-3/mdb/2.0": "<mdb:MD_Metadata "} {
			r := f.get(t, "", "/", q("outputSchema", schema, "elementSetName", "full", "maxRecords", "3"))
			if s := r.results(t); len(s.Results.Records) != 3 || strings.Count(string(r.body), root) != 3 {
				t.Errorf("%s: %d records, %d roots: %.400s", schema, len(s.Results.Records), strings.Count(string(r.body), root), r.body[400:])
			}
		}
		hits := f.get(t, "", "/", q("resultType", "hits")).results(t)
		if hits.Results.Matched != cswPublic+1 || len(hits.Results.Records) != 0 || hits.Results.Next != 0 {
			t.Errorf("hits %+v", hits.Results)
		}
	})
}

func testCSWByID(t *testing.T, f *cswFixture) {
	id := fmt.Sprintf("layer-%d", f.public[0])
	r := f.get(t, "", "/", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecordById", "id", id,
		"outputSchema", "http://www.isotc211.org/2005/gmd", "elementSetName", "full"))
	body := string(r.body)
	if r.status != 200 || !strings.Contains(body, "<gmd:fileIdentifier><gco:CharacterString>"+id) || !strings.Contains(body, "Catalogue river 00") {
		t.Errorf("by id: %d %.500s", r.status, body)
	}
	r = f.get(t, "", "/", kvp("service", "CSW", "version", "3.0.0", "request", "GetRecordById", "id", id))
	if r.status != 200 || !strings.HasPrefix(strings.TrimSpace(string(r.body[strings.Index(string(r.body), "?>")+2:])), "<csw30:SummaryRecord") {
		t.Errorf("3.0 by id: %d %.300s", r.status, r.body)
	}
	f.get(t, "", "/", kvp("service", "CSW", "version", "3.0.0", "request", "GetRecordById", "id", "layer-999999")).exception(t, 404, "NotFound")
	r = f.get(t, "", "/", kvp("service", "CSW", "version", "2.0.2", "request", "GetDomain", "PropertyName", "dc:type"))
	if r.status != 200 || !strings.Contains(string(r.body), "<csw:Value>layer</csw:Value><csw:Value>table</csw:Value>") {
		t.Errorf("domain: %.400s", r.body)
	}
	r = f.get(t, "", "/", kvp("service", "CSW", "version", "2.0.2", "request", "GetDomain", "ParameterName", "GetRecords.resultType"))
	if r.status != 200 || !strings.Contains(string(r.body), "<csw:Value>hits</csw:Value>") {
		t.Errorf("parameter domain: %.400s", r.body)
	}
	// the REST services list gives the per-dataset endpoint, which holds
	// that record only
	sr := f.e.Do(t, servertest.Request{Method: "GET", Path: fmt.Sprintf("/layers/%d/services/csw/", f.public[0]), Key: f.owner.Key})
	var svc struct {
		URLs []struct {
			ServiceURL string `json:"service_url"`
		}
	}
	sr.JSON(t, &svc)
	if len(svc.URLs) != 1 || svc.URLs[0].ServiceURL != f.e.HTTP.URL+"/services/csw/"+id+"/" {
		t.Errorf("csw service urls %+v", svc)
	}
	s := f.get(t, "", "/"+id+"/", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record")).results(t)
	if s.Results.Matched != 1 || s.Results.Records[0].Identifier != id {
		t.Errorf("dataset endpoint: %+v", s.Results)
	}
}

func testCSWPermissions(t *testing.T, f *cswFixture) {
	private, draft := fmt.Sprintf("layer-%d", f.private), fmt.Sprintf("layer-%d", f.unpublished)
	getRecords := kvp("service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record", "maxRecords", "100",
		"constraintLanguage", "CQL_TEXT", "constraint", "dc:title LIKE '%river%'")
	titles := kvp("service", "CSW", "version", "2.0.2", "request", "GetDomain", "PropertyName", "dc:title")
	for _, key := range []string{"", f.reader.Key} {
		s := f.get(t, key, "/", getRecords).results(t)
		if s.Results.Matched != cswPublic/2 {
			t.Errorf("outsider %q matched %d", key, s.Results.Matched)
		}
		for _, body := range []string{string(f.get(t, key, "/", getRecords).body), string(f.get(t, key, "/", titles).body)} {
			if strings.Contains(body, "Secret") || strings.Contains(body, "Draft") {
				t.Errorf("outsider sees private or draft: %.300s", body)
			}
		}
		for _, id := range []string{private, draft} {
			r := f.get(t, key, "/", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecordById", "id", id))
			if strings.Contains(string(r.body), id) {
				t.Errorf("outsider reads %s: %.300s", id, r.body)
			}
			f.get(t, key, "/"+id+"/", kvp("service", "CSW", "request", "GetCapabilities")).exception(t, 404, "NotFound")
		}
	}
	// The owner sees the private one, never the draft.
	s := f.get(t, f.owner.Key, "/", getRecords).results(t)
	if s.Results.Matched != cswPublic/2+1 {
		t.Errorf("owner matched %d", s.Results.Matched)
	}
	// a token without the catalog scope; a bad key
	f.get(t, f.e.Token(t, f.reader.User, "query"), "/", getRecords).exception(t, 401, "NoApplicableCode")
	f.get(t, "", "/", getRecords+"&key=00000000000000000000000000000000").exception(t, 401, "NoApplicableCode")
}

func testCSWHostile(t *testing.T, f *cswFixture) {
	g := func(q string, code string) {
		t.Helper()
		f.get(t, "", "/", q).exception(t, 400, code)
	}
	base := "service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record"
	g(base+"&startPosition=0", "InvalidParameterValue")
	g(base+"&startPosition=-5", "InvalidParameterValue")
	g(base+"&maxRecords=lots", "InvalidParameterValue")
	g(base+"&constraintLanguage=FILTER&constraint=%3CFilter%3E", "InvalidParameterValue")
	g(base+"&constraintLanguage=CQL_TEXT&constraint=title%20LIKE", "InvalidParameterValue")
	g(base+"&constraintLanguage=FILTER&constraint="+strings.Repeat("%3CAnd%3E", 300), "InvalidParameterValue")
	g("service=CSW&version=2.0.2&request=Transaction", "OperationNotSupported")
	g("service=CSW&version=2.0.2", "MissingParameterValue")
	for _, body := range []string{
		`<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><GetRecords service="CSW" version="2.0.2">&x;</GetRecords>`,
		`<GetRecords service="CSW" version="2.0.2"><Query typeNames="csw:Record">` + strings.Repeat("<x>", 500) + strings.Repeat("</x>", 500) + `</Query></GetRecords>`,
		`<<<garbage`,
	} {
		f.post(t, "", "/", body).exception(t, 400, "InvalidParameterValue")
	}
	r := f.do(t, "", http.MethodPost, "/", "application/xml", strings.NewReader("<a>"+strings.Repeat(" ", 2<<20)+"</a>"))
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("huge body: %d", r.status)
	}
}

// An uploaded ISO 19139 document is the record's full ISO answer, byte
// for byte, and its title speaks for the record in Dublin Core too.
func testCSWUploadedISO(t *testing.T, f *cswFixture) {
	ctx := context.Background()
	lid := f.public[5]
	l, err := f.e.Store.Client.Layer.Get(ctx, lid)
	if err != nil || l.PublishedVersionID == nil {
		t.Fatalf("layer %d: %v", lid, err)
	}
	doc := `<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco"><gmd:fileIdentifier><gco:CharacterString>publisher-own-uuid</gco:CharacterString></gmd:fileIdentifier></gmd:MD_Metadata>`
	err = f.e.Store.Client.MetadataDocument.Create().SetDatasetKind("layer").SetDatasetID(lid).SetVersionID(*l.PublishedVersionID).
		SetFormat(metadatadocument.FormatIso).SetXML(`<?xml version="1.0"?>` + "\n" + doc).SetTitle("Uploaded title").
		SetUploadedBy(f.owner.User.ID).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("layer-%d", lid)
	r := f.get(t, "", "/", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecordById", "id", id,
		"outputSchema", "http://www.isotc211.org/2005/gmd"))
	if r.status != 200 || !strings.Contains(string(r.body), doc) {
		t.Errorf("uploaded ISO not answered as is: %.600s", r.body)
	}
	s := f.get(t, "", "/", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record",
		"constraintLanguage", "CQL_TEXT", "constraint", "dc:identifier = '"+id+"'")).results(t)
	if len(s.Results.Records) != 1 || s.Results.Records[0].Title != "Uploaded title" {
		t.Errorf("uploaded title: %+v", s.Results.Records)
	}
}
