package remote

import (
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/secrets"
)

func TestConnOfOpensCredentials(t *testing.T) {
	key := make([]byte, secrets.KeySize)
	key[0] = 1
	box, _ := secrets.New(key)
	user, _ := box.Seal("reader")
	pass, _ := box.Seal("hunter22")
	src := &ent.Source{URLRemote: "postgresql://db/gis", Username: user, Password: pass, SslVerify: true, Schemas: []string{"public"}}
	c, err := ConnOf(src, nil, box)
	if err != nil || c.Username != "reader" || c.Password != "hunter22" || !c.SSLVerify || c.Schemas[0] != "public" {
		t.Fatalf("%+v %v", c, err)
	}
	// Rows written before sealing read as they are.
	if c, err := ConnOf(&ent.Source{Password: "plain"}, nil, box); err != nil || c.Password != "plain" {
		t.Fatalf("plain %+v %v", c, err)
	}
	// Another key, or none: a permanent error naming no secret.
	other, _ := secrets.New(make([]byte, secrets.KeySize))
	for _, b := range []*secrets.Box{other, nil} {
		_, err := ConnOf(src, nil, b)
		if !IsPermanent(err) || strings.Contains(err.Error(), "hunter22") || !strings.Contains(err.Error(), "GEOPUB_SECRET_KEY") {
			t.Fatalf("wrong key: %v", err)
		}
	}
}
