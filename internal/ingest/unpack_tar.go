package ingest

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
)

func unpackTarGz(x *extractor, r io.Reader) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return entryErr(ErrCorrupt, "", "bad gzip header", err)
	}
	defer gz.Close()
	return unpackTarStream(x, gz, true)
}

func unpackTar(x *extractor, r io.Reader) error { return unpackTarStream(x, r, false) }

// unpackTarStream extracts a tar stream. gzipped tells that the stream came
// out of gzip: a gzip file whose first block is not a tar header is a
// compressed single file (data.csv.gz), which is not supported.
func unpackTarStream(x *extractor, r io.Reader, gzipped bool) error {
	tr := tar.NewReader(r)
	for first := true; ; first = false {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if first && gzipped && errors.Is(err, tar.ErrHeader) {
				return entryErr(ErrUnsupported, "", "gzip file does not contain a tar archive", nil)
			}
			return entryErr(ErrCorrupt, "", "bad tar header", err)
		}
		switch h.Typeflag {
		case tar.TypeReg: // the reader reports old-style TypeRegA entries as TypeReg
			err = x.file(h.Name, tr)
		case tar.TypeDir:
			err = x.dir(h.Name)
		case tar.TypeSymlink:
			err = x.symlink(h.Name, h.Linkname)
		case tar.TypeLink:
			err = x.hardlink(h.Name, h.Linkname)
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			err = entryErr(ErrUnsafePath, h.Name, "device or FIFO entry", nil)
		case tar.TypeXGlobalHeader:
			continue
		default:
			err = entryErr(ErrUnsupported, h.Name, "tar entry type "+string(rune(h.Typeflag)), nil)
		}
		if err != nil {
			return err
		}
	}
}
