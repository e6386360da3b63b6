package storetest

import (
	"context"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/users"
)

// User creates a user with email (and a good password, name and country)
// in c, failing t when it cannot.
func User(t testing.TB, c *ent.Client, email string) *ent.User {
	t.Helper()
	u, err := users.Create(context.Background(), c, users.New{Email: email, Password: "correct horse battery", FirstName: "O", Country: "NZ"})
	if err != nil {
		t.Fatal(err)
	}
	return u
}
