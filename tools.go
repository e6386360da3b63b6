//go:build tools

package geopub

// Code generators run by `go generate`, kept in go.mod.
import (
	_ "github.com/99designs/gqlgen"
)
