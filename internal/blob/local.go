package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// LocalPath returns the file that holds key when the store is a local folder,
// so that code needing a path (GDAL) can open it in place. The boolean is
// false for remote backends and for invalid keys; the file may not exist.
// Treat the file as read-only.
func (s *Store) LocalPath(key string) (string, bool) {
	if s.dir == "" || ValidateKey(key) != nil {
		return "", false
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), true
}

// Download copies the object at key to dstPath, creating or replacing it
// atomically (a temporary file beside dstPath is renamed into place), and
// returns the number of bytes copied.
func (s *Store) Download(ctx context.Context, key, dstPath string) (n int64, err error) {
	r, _, err := s.Open(ctx, key)
	if err != nil {
		return 0, err
	}
	defer r.Close()

	f, err := os.CreateTemp(filepath.Dir(dstPath), "."+filepath.Base(dstPath)+".*.part")
	if err != nil {
		return 0, fmt.Errorf("blob: download %q: %w", truncate(key), err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if n, err = io.Copy(f, ctxReader{ctx, r}); err != nil {
		return 0, fmt.Errorf("blob: download %q: %w", truncate(key), err)
	}
	if err = errors.Join(f.Sync(), f.Close()); err != nil {
		return 0, fmt.Errorf("blob: download %q: %w", truncate(key), err)
	}
	if err = os.Rename(f.Name(), dstPath); err != nil {
		return 0, fmt.Errorf("blob: download %q: %w", truncate(key), err)
	}
	return n, nil
}
