package remote

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/ingest"
)

// CleanRel returns rel as a slash-separated path safe to create under a
// folder (no "..", no absolute path, no empty or dot segment, no
// backslash), or false.
func CleanRel(rel string) (string, bool) {
	if rel == "" || strings.ContainsAny(rel, "\\\x00") || strings.HasPrefix(rel, "/") {
		return "", false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return path.Clean(rel), true
}

// Copier streams files into an inbox under a total size budget and a
// file count.
type Copier struct {
	Inbox string
	// Budget is how many bytes all files together may hold.
	Budget int64
	// MaxFiles is how many files may be copied.
	MaxFiles int
	used     int64
	files    int
}

// NewCopier copies into inbox within the fetch client's download limit.
func NewCopier(inbox string, f *fetch.Client) *Copier {
	var limit int64 = fetch.DefaultMaxBytes
	if f != nil && f.MaxBytes > 0 {
		limit = f.MaxBytes
	}
	return &Copier{Inbox: inbox, Budget: limit, MaxFiles: ingest.DefaultMaxFiles}
}

// Copy writes r to rel under the inbox, never holding it in memory, and
// fails with fetch.ErrTooLarge once the budget is spent, with a Failure
// past MaxFiles.
func (c *Copier) Copy(rel string, r io.Reader) error {
	if c.files >= c.MaxFiles {
		return Failed("The source holds more than %d files, more than a scan reads.", c.MaxFiles)
	}
	c.files++
	dst := filepath.Join(c.Inbox, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	left := c.Budget - c.used
	n, err := io.Copy(f, io.LimitReader(r, left+1))
	c.used += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > left {
		err = fmt.Errorf("%w (%d bytes allowed in all)", fetch.ErrTooLarge, c.Budget)
	}
	return err
}
