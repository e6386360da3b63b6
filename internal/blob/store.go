package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"
)

// Attributes describe a stored object.
type Attributes struct {
	Size        int64
	ContentType string
	ModTime     time.Time
}

// Object is one entry of a List.
type Object struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// Store is a bucket of objects. It is safe for concurrent use.
type Store struct {
	bucket *gcblob.Bucket
	dir    string // root folder of the local backend; "" otherwise
}

// Open opens the store named by rawURL: "" for dataDir/blobs (created 0750),
// "file:///abs/path" for that folder (created 0750 if missing), or
// "s3://bucket?..." for an S3-compatible store (see the package doc). The
// S3 SDK's log lines go to slog's default logger.
func Open(ctx context.Context, rawURL, dataDir string) (*Store, error) {
	return OpenLogged(ctx, rawURL, dataDir, slog.Default())
}

// OpenLogged is Open with the S3 SDK's log lines written to logger.
func OpenLogged(ctx context.Context, rawURL, dataDir string, logger *slog.Logger) (*Store, error) {
	if rawURL == "" {
		if dataDir == "" {
			return nil, errors.New("blob: no URL and no data directory")
		}
		return openLocal(filepath.Join(dataDir, "blobs"))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: parse URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("blob: file URL must be file:///absolute/path, got %q", rawURL)
		}
		if len(u.Query()) > 0 || u.Path == "" || !filepath.IsAbs(filepath.FromSlash(u.Path)) {
			return nil, fmt.Errorf("blob: file URL must be file:///absolute/path, got %q", rawURL)
		}
		return openLocal(filepath.FromSlash(u.Path))
	case "s3":
		if u.Host == "" {
			return nil, fmt.Errorf("blob: s3 URL has no bucket: %q", rawURL)
		}
		b, err := openS3(ctx, u, logger)
		if err != nil {
			return nil, fmt.Errorf("blob: open %s: %w", u.Redacted(), err)
		}
		return &Store{bucket: b}, nil
	default:
		return nil, fmt.Errorf("blob: unsupported URL scheme %q (want file or s3)", u.Scheme)
	}
}

func openLocal(dir string) (*Store, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create folder: %w", err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{
		DirFileMode: 0o750,
		// Write temporary files beside their targets, so the final rename
		// never crosses file systems (the data directory is often its own
		// volume). List hides them; ValidateKey reserves their names.
		NoTempDir: true,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: open folder: %w", err)
	}
	return &Store{bucket: b, dir: dir}, nil
}

// Ping reports whether the store can be reached and its bucket exists:
// readiness checks call it, so that an unreachable object store fails
// readiness instead of the first upload.
func (s *Store) Ping(ctx context.Context) error {
	ok, err := s.bucket.IsAccessible(ctx)
	if err != nil {
		return fmt.Errorf("blob: store unreachable: %w", err)
	}
	if !ok {
		return errors.New("blob: bucket does not exist")
	}
	return nil
}

// Close releases the store's resources.
func (s *Store) Close() error { return s.bucket.Close() }

// Put stores the bytes of r under key, replacing any object there, and
// returns the number of bytes stored. r is streamed, never held whole in
// memory. If r fails or ctx is cancelled, Put returns the error and no new
// object becomes visible (an earlier object under key stays as it was).
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if err := ValidateKey(key); err != nil {
		return 0, err
	}
	// Cancelling the writer's context is how a gocloud write is aborted.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &gcblob.WriterOptions{ContentType: contentType})
	if err != nil {
		return 0, wrap("put", key, err)
	}
	// io.Copy, not w.ReadFrom: the copy loop checks ctx between chunks and
	// keeps a reader error apart from a writer error.
	n, err := io.Copy(w, ctxReader{ctx, r})
	if err != nil {
		cancel()
		_ = w.Close()
		return 0, wrap("put", key, err)
	}
	if err := w.Close(); err != nil {
		return 0, wrap("put", key, err)
	}
	return n, nil
}

// Open returns a reader over the object at key and its attributes. The
// caller must close the reader.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, Attributes, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Attributes{}, err
	}
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, Attributes{}, wrap("open", key, err)
	}
	return r, Attributes{Size: r.Size(), ContentType: r.ContentType(), ModTime: r.ModTime()}, nil
}

// Stat returns the attributes of the object at key.
func (s *Store) Stat(ctx context.Context, key string) (Attributes, error) {
	if err := ValidateKey(key); err != nil {
		return Attributes{}, err
	}
	a, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return Attributes{}, wrap("stat", key, err)
	}
	return Attributes{Size: a.Size, ContentType: a.ContentType, ModTime: a.ModTime}, nil
}

// Exists reports whether an object is stored at key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	_, err := s.Stat(ctx, key)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound):
		return false, nil
	default:
		return false, err
	}
}

// Delete removes the object at key; a missing object is ErrNotFound.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := s.bucket.Delete(ctx, key); err != nil {
		return wrap("delete", key, err)
	}
	return nil
}

// List yields the objects whose keys start with prefix ("" for all), paging
// through the backend as it goes. The order is the backend's: lexical on S3,
// folder walk order locally (so "a/1" may precede "a.txt"); sort if it
// matters. A failure is yielded once, as the error of the last pair.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		if err := validatePrefix(prefix); err != nil {
			yield(Object{}, err)
			return
		}
		it := s.bucket.List(&gcblob.ListOptions{Prefix: prefix})
		for {
			o, err := it.Next(ctx)
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Object{}, fmt.Errorf("blob: list %q: %w", prefix, mapErr(err)))
				return
			}
			if o.IsDir || (s.dir != "" && tempName.MatchString(o.Key)) {
				continue
			}
			if !yield(Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime}, nil) {
				return
			}
		}
	}
}

// wrap adds context to a backend error and maps "not found" to ErrNotFound.
func wrap(op, key string, err error) error {
	return fmt.Errorf("blob: %s %q: %w", op, truncate(key), mapErr(err))
}

func mapErr(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound && !errors.Is(err, ErrNotFound) {
		return errors.Join(ErrNotFound, err)
	}
	return err
}

// ctxReader stops a streamed copy as soon as ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
