package auth

import (
	"slices"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
)

func TestValidateReferrers(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string // nil when an error is expected
	}{
		{"host", []string{"maps.example.com"}, []string{"maps.example.com"}},
		{"lower-cased and trimmed", []string{" Maps.Example.COM "}, []string{"maps.example.com"}},
		{"wildcard", []string{"*.example.com"}, []string{"*.example.com"}},
		{"host with port", []string{"example.com:8080"}, []string{"example.com:8080"}},
		{"wildcard with port", []string{"*.example.com:443"}, []string{"*.example.com:443"}},
		{"ipv4", []string{"192.0.2.7"}, []string{"192.0.2.7"}},
		{"ipv6 bare", []string{"2001:DB8::1"}, []string{"[2001:db8::1]"}},
		{"ipv6 with port", []string{"[2001:db8::1]:8080"}, []string{"[2001:db8::1]:8080"}},
		{"duplicates dropped", []string{"a.com", "A.com", "b.com"}, []string{"a.com", "b.com"}},
		{"none", []string{}, []string{}},
		{"empty", []string{""}, nil},
		{"blank", []string{"  "}, nil},
		{"scheme", []string{"https://example.com"}, nil},
		{"path", []string{"example.com/maps"}, nil},
		{"query", []string{"example.com?x=1"}, nil},
		{"wildcard alone", []string{"*"}, nil},
		{"wildcard inside", []string{"maps.*.com"}, nil},
		{"wildcard without dot", []string{"*example.com"}, nil},
		{"wildcard at end", []string{"example.*"}, nil},
		{"bad port", []string{"example.com:http"}, nil},
		{"port zero", []string{"example.com:0"}, nil},
		{"port too big", []string{"example.com:70000"}, nil},
		{"empty port", []string{"example.com:"}, nil},
		{"two colons", []string{"a:b:c"}, nil},
		{"bracketed name", []string{"[example.com]"}, nil},
		{"unclosed bracket", []string{"[2001:db8::1"}, nil},
		{"junk after bracket", []string{"[2001:db8::1]x"}, nil},
		{"bad characters", []string{"exa mple.com"}, nil},
		{"empty label", []string{"example..com"}, nil},
		{"one bad among good", []string{"a.com", "ftp://b.com"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateReferrers(tt.in)
			if tt.want == nil {
				e := apperr.As(err)
				if e.Code != apperr.Invalid || len(e.Fields["referrers"]) == 0 {
					t.Fatalf("ValidateReferrers(%q) = %q, %v; want a referrers field error", tt.in, got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ValidateReferrers(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestReferrerAllowed(t *testing.T) {
	rules := []string{"maps.example.com", "*.example.org", "example.net:8080", "[2001:db8::1]"}
	tests := []struct {
		name    string
		rules   []string
		referer string
		want    bool
	}{
		{"no rules, no referer", nil, "", true},
		{"no rules, any referer", nil, "https://evil.test/", true},
		{"explicit host", rules, "https://maps.example.com/app?x=1", true},
		{"explicit host, any port", rules, "http://maps.example.com:9000/", true},
		{"explicit host, upper case", rules, "https://MAPS.Example.com/", true},
		{"explicit host, other sub-domain", rules, "https://www.example.com/", false},
		{"explicit host is not a suffix rule", rules, "https://a.maps.example.com/", false},
		{"wildcard one level", rules, "https://a.example.org/", true},
		{"wildcard two levels", rules, "https://a.b.example.org/", true},
		{"wildcard excludes apex", rules, "https://example.org/", false},
		{"wildcard is label-aligned", rules, "https://badexample.org/", false},
		{"port rule, same port", rules, "http://example.net:8080/", true},
		{"port rule, other port", rules, "http://example.net:8081/", false},
		{"port rule, default port", rules, "http://example.net/", false},
		{"ipv6 rule", rules, "http://[2001:db8:0::1]:3000/", true},
		{"localhost always", rules, "http://localhost:3000/", true},
		{"127.0.0.1 always", rules, "http://127.0.0.1/", true},
		{"::1 always", rules, "http://[::1]:8080/", true},
		{"other loopback is not special", rules, "http://127.0.0.2/", false},
		{"bare host referer", rules, "maps.example.com", true},
		{"missing referer with rules", rules, "", false},
		{"unparsable referer", rules, "http://%zz/", false},
		{"other host", rules, "https://evil.test/", false},
		{"host in path does not count", rules, "https://evil.test/maps.example.com", false},
		{"userinfo does not count", rules, "https://maps.example.com@evil.test/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReferrerAllowed(tt.rules, tt.referer); got != tt.want {
				t.Errorf("ReferrerAllowed(%q, %q) = %v, want %v", tt.rules, tt.referer, got, tt.want)
			}
		})
	}
}

func TestReferrerPortRuleWithSchemeDefault(t *testing.T) {
	rules := []string{"example.com:443"}
	if !ReferrerAllowed(rules, "https://example.com/") {
		t.Error("https referer without a port should count as port 443")
	}
	if ReferrerAllowed(rules, "http://example.com/") {
		t.Error("http referer without a port should count as port 80")
	}
}
