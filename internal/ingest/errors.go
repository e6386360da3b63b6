package ingest

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is. Errors returned by Unpack wrap one of
// them in an *EntryError that names the archive entry.
var (
	// ErrUnsafePath: an entry would land outside the destination (../,
	// absolute path, escaping link) or is a device, FIFO or similar.
	ErrUnsafePath = errors.New("unsafe path")
	// ErrTooLarge: a size or compression-ratio limit was exceeded.
	ErrTooLarge = errors.New("too large")
	// ErrTooManyFiles: the entry-count limit was exceeded.
	ErrTooManyFiles = errors.New("too many files")
	// ErrCorrupt: the archive cannot be read (bad header, checksum,
	// truncation, duplicate entries).
	ErrCorrupt = errors.New("corrupt archive")
	// ErrUnsupported: the file is an archive or entry type this package does
	// not extract (e.g. RAR, bzip2, sparse tar entries, encrypted entries).
	ErrUnsupported = errors.New("unsupported")
)

// EntryError reports a failure about one archive entry (or the archive
// itself when Entry is empty).
type EntryError struct {
	Kind   error  // one of the sentinel errors above
	Entry  string // entry name as stored in the archive
	Detail string
	Err    error // underlying cause, if any
}

func (e *EntryError) Error() string {
	msg := e.Kind.Error()
	if e.Entry != "" {
		msg = fmt.Sprintf("%s: entry %q", msg, e.Entry)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return "ingest: " + msg
}

// Unwrap exposes both the sentinel kind and the cause to errors.Is/As.
func (e *EntryError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func entryErr(kind error, entry, detail string, cause error) error {
	return &EntryError{Kind: kind, Entry: entry, Detail: detail, Err: cause}
}
