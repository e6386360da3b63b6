package metrics

import "testing"

func TestPlainPattern(t *testing.T) {
	for in, want := range map[string]string{
		"/services/api/{version:v1(?:\\.x)?}/layers/{lid:[0-9]+}/versions/{vid:[0-9]+|draft|published}": "/services/api/{version}/layers/{lid}/versions/{vid}",
		"/graphql":            "/graphql",
		"/x/{id}/y":           "/x/{id}/y",
		"/a/{n:[0-9]{2,3}}/b": "/a/{n}/b",
	} {
		if got := plainPattern(in); got != want {
			t.Errorf("plainPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
