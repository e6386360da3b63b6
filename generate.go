// Package geopub is the root of the Geopub module. It holds no code of its
// own: it only carries the code generation steps, run with `go generate ./...`.
package geopub

//go:generate go run -mod=mod ./ent/entc.go
//go:generate go run -mod=mod github.com/99designs/gqlgen generate
