package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummaryCountsAndReasons(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":2.5}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestB/postgres","Output":"=== RUN   TestB/postgres\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB/postgres","Output":"    storetest.go:48: no database\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB/postgres","Output":"    --- SKIP: TestB/postgres (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB/postgres"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    x_test.go:9: boom\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}`,
		`{"Action":"fail","Package":"p"}`,
		`{"Action":"skip","Package":"q"}`,
		`# a build error line`,
	}, "\n")
	var out bytes.Buffer
	s := &summary{out: &out, output: map[testKey][]string{}}
	if err := s.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	s.report()
	got := out.String()
	for _, want := range []string{
		"--- FAIL: TestC (p)\n    x_test.go:9: boom\n",
		"FAIL\tp\t0.1s\n",
		"# a build error line\n",
		"1  no database (e.g. TestB/postgres)",
		"FAILED: p TestC",
		"slowest tests:\n      2.5s  p TestA\n",
		"\n2 passed, 1 failed, 0 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}
