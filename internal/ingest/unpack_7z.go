package ingest

import (
	"io"
	"io/fs"

	"github.com/bodgit/sevenzip"
)

func unpack7z(x *extractor, r io.ReaderAt, size int64) (err error) {
	defer func() {
		// The 7z decoders are third-party code fed with untrusted input.
		if p := recover(); p != nil {
			err = entryErr(ErrCorrupt, "", "7z decoder failure", nil)
		}
	}()
	zr, err := sevenzip.NewReader(r, size)
	if err != nil {
		return entryErr(ErrCorrupt, "", "cannot read 7z header", err)
	}
	if len(zr.File) > x.lim.MaxFiles {
		return entryErr(ErrTooManyFiles, "", "7z lists "+itoa(int64(len(zr.File)))+" entries", nil)
	}
	for _, zf := range zr.File {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if err := sevenEntry(x, zf); err != nil {
			return err
		}
	}
	return nil
}

func sevenEntry(x *extractor, zf *sevenzip.File) error {
	mode := zf.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		rc, err := zf.Open()
		if err != nil {
			return entryErr(ErrCorrupt, zf.Name, "cannot open", err)
		}
		target, err := io.ReadAll(io.LimitReader(rc, 4096))
		rc.Close()
		if err != nil {
			return entryErr(ErrCorrupt, zf.Name, "cannot read link target", err)
		}
		return x.symlink(zf.Name, string(target))
	case mode.IsDir():
		return x.dir(zf.Name)
	case mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0:
		return entryErr(ErrUnsafePath, zf.Name, "special file ("+mode.String()+")", nil)
	}
	rc, err := zf.Open()
	if err != nil {
		return entryErr(ErrCorrupt, zf.Name, "cannot open", err)
	}
	defer rc.Close()
	return x.file(zf.Name, rc)
}
