// Package moduleroot finds the service's source folder for tests that
// run files kept beside the code (the S3 gateway's module, the npm
// helpers' scripts): the folder of go.mod above the working directory,
// which go test sets to the test's package folder. Not the source path
// the binary records: builds with -trimpath, as CI's, leave it out.
package moduleroot

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir returns the folder of the nearest go.mod above the working
// directory.
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("moduleroot: no go.mod above the working directory")
		}
		dir = up
	}
}
