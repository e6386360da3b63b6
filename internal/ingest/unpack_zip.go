package ingest

import (
	"archive/zip"
	"errors"
	"io"
	"io/fs"

	"golang.org/x/text/encoding/charmap"
)

func unpackZip(x *extractor, r io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return entryErr(ErrCorrupt, "", "cannot read zip directory", err)
	}
	if len(zr.File) > x.lim.MaxFiles {
		return entryErr(ErrTooManyFiles, "", "zip lists "+itoa(int64(len(zr.File)))+" entries", nil)
	}
	for _, zf := range zr.File {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if err := zipEntry(x, zf); err != nil {
			return err
		}
	}
	return nil
}

func zipEntry(x *extractor, zf *zip.File) error {
	if zf.NonUTF8 {
		zf.Name = legacyName(zf.Name, charmap.CodePage437)
	}
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
	if zf.Flags&0x1 != 0 {
		return entryErr(ErrUnsupported, zf.Name, "encrypted entry", nil)
	}
	rc, err := zf.Open()
	if err != nil {
		if errors.Is(err, zip.ErrAlgorithm) {
			return entryErr(ErrUnsupported, zf.Name, "compression method", err)
		}
		return entryErr(ErrCorrupt, zf.Name, "cannot open", err)
	}
	defer rc.Close()
	return x.file(zf.Name, rc)
}
