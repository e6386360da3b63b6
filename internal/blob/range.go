package blob

import (
	"context"
	"errors"
	"io"
	"os"
)

// OpenRange returns a reader over length bytes of the object at key from
// offset (length < 0: to the end). The caller must close it.
func (s *Store) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	r, err := s.bucket.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, wrap("open", key, err)
	}
	return r, nil
}

// Seeker is an io.ReadSeeker over a stored object of known size that
// reads through range requests: each Read after a Seek opens one range
// from the new offset to the end, so http.ServeContent can answer Range
// requests without downloading the object. Close it when done.
type Seeker struct {
	s    *Store
	ctx  context.Context
	key  string
	size int64
	off  int64
	r    io.ReadCloser // open range reader positioned at off, or nil
}

// Read reads from the current offset.
func (k *Seeker) Read(p []byte) (int, error) {
	if k.off >= k.size {
		return 0, io.EOF
	}
	if k.r == nil {
		r, err := k.s.OpenRange(k.ctx, k.key, k.off, -1)
		if err != nil {
			return 0, err
		}
		k.r = r
	}
	n, err := k.r.Read(p)
	k.off += int64(n)
	return n, err
}

// Seek moves the offset; the next Read opens a new range there.
func (k *Seeker) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = k.off + offset
	case io.SeekEnd:
		abs = k.size + offset
	default:
		return 0, errors.New("blob: bad whence")
	}
	if abs < 0 {
		return 0, errors.New("blob: negative position")
	}
	if abs != k.off && k.r != nil {
		k.r.Close()
		k.r = nil
	}
	k.off = abs
	return abs, nil
}

// Close closes the open range, if any.
func (k *Seeker) Close() error {
	if k.r == nil {
		return nil
	}
	err := k.r.Close()
	k.r = nil
	return err
}

// OpenSeekable opens the object at key for reading and seeking, as
// http.ServeContent wants: the file itself on a local store, range reads
// (a Seeker) on a remote one. Close it when done.
func (s *Store) OpenSeekable(ctx context.Context, key string) (io.ReadSeekCloser, error) {
	if p, ok := s.LocalPath(key); ok {
		f, err := os.Open(p)
		if err != nil {
			return nil, wrap("open", key, err)
		}
		return f, nil
	}
	attrs, err := s.Stat(ctx, key)
	if err != nil {
		return nil, err
	}
	return &Seeker{s: s, ctx: ctx, key: key, size: attrs.Size}, nil
}
