// Package smbsource reads sources kept on an SMB2/3 file share (Windows
// shares, Samba; cifs:// URLs): the files in the source's folder and its
// subfolders are copied, streamed to disk, into the scan's inbox and
// scanned like an upload. It speaks SMB itself (go-smb2) over a connection
// dialled through the fetch guard; nothing is mounted.
package smbsource

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/hirochachacha/go-smb2"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
)

// maxDepth bounds how deep the walk goes below the source's folder.
const maxDepth = 32

// Kind is the file-share source kind.
type Kind struct{}

var _ remote.Files = Kind{}

// Gather copies every file under the source's folder into inbox, keeping
// their paths below it.
func (Kind) Gather(ctx context.Context, c remote.Conn, inbox string, note func(string)) ([]string, error) {
	loc, problem := ParseURL(c.URL)
	if problem != "" {
		return nil, remote.Failed("%s", problem)
	}
	if c.Fetch == nil || c.Fetch.Guard == nil {
		return nil, errors.New("smbsource: no guarded fetch client")
	}
	conn, err := c.Fetch.Guard.Dialer().DialContext(ctx, "tcp", loc.Addr)
	if err != nil {
		if errors.Is(err, fetch.ErrForbiddenAddress) {
			return nil, fmt.Errorf("%w: the file server's address is private or internal, which sources may not reach", fetch.ErrForbiddenAddress)
		}
		return nil, fmt.Errorf("%s: %w", "Could not reach the file server at "+loc.Addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	user := c.Username
	if user == "" {
		user = "guest"
	}
	d := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: user, Password: c.Password}}
	session, err := d.DialContext(ctx, conn)
	if err != nil {
		return nil, explain(err, c, "signing in to "+loc.Addr)
	}
	defer session.Logoff()
	share, err := session.WithContext(ctx).Mount(loc.Share)
	if err != nil {
		return nil, explain(err, c, "opening share "+loc.Share)
	}
	defer share.Umount()
	w := walker{share: share.WithContext(ctx), copier: remote.NewCopier(inbox, c.Fetch), note: note, c: c}
	if err := w.walk(loc.Dir, "", 0); err != nil {
		return nil, err
	}
	where := "cifs://" + path.Join(loc.Addr, loc.Share, loc.Dir)
	if len(w.files) == 0 {
		return nil, remote.Failed("There are no files in %s.", where)
	}
	note(fmt.Sprintf("Copied %d file(s) from %s", len(w.files), where))
	return w.files, nil
}

type walker struct {
	share  *smb2.Share
	copier *remote.Copier
	note   func(string)
	c      remote.Conn
	files  []string
}

// walk copies the files of dir (a share path) into rel (an inbox path).
func (w *walker) walk(dir, rel string, depth int) error {
	if depth > maxDepth {
		w.note(fmt.Sprintf("Skipped %s: folders nest deeper than %d levels", rel, maxDepth))
		return nil
	}
	entries, err := w.share.ReadDir(dir)
	if err != nil {
		return explain(err, w.c, "listing "+shown(dir))
	}
	for _, e := range entries {
		name := e.Name()
		if name == "." || name == ".." {
			continue
		}
		childRel, ok := remote.CleanRel(path.Join(rel, name))
		if !ok || strings.Contains(name, "/") {
			w.note(fmt.Sprintf("Skipped %q: its name is not a safe relative path", name))
			continue
		}
		child := path.Join(dir, name)
		switch {
		case e.IsDir():
			if err := w.walk(child, childRel, depth+1); err != nil {
				return err
			}
		case e.Mode().IsRegular():
			if err := w.copy(child, childRel); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *walker) copy(name, rel string) error {
	f, err := w.share.Open(name)
	if err != nil {
		return explain(err, w.c, "opening "+name)
	}
	defer f.Close()
	if err := w.copier.Copy(rel, f); err != nil {
		if errors.Is(err, fetch.ErrTooLarge) {
			return err
		}
		return explain(err, w.c, "reading "+name)
	}
	w.files = append(w.files, rel)
	return nil
}

func shown(dir string) string {
	if dir == "" {
		return "the share"
	}
	return dir
}
