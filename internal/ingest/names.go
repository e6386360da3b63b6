package ingest

import (
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// legacyName returns an archive entry's name as UTF-8. Names that are
// valid UTF-8 are kept; others were written by tools that store names in
// a legacy code page and are decoded from it: the zip format's own
// (IBM 437) for zip entries without the UTF-8 flag, Windows-1252 (a
// superset of Latin-1's printable characters) for tar and 7z. Every byte
// decodes, so a datasource's path is always text the store accepts and a
// client can show, never a refusal of the whole scan.
func legacyName(name string, cp *charmap.Charmap) string {
	if utf8.ValidString(name) {
		return name
	}
	out, err := cp.NewDecoder().String(name)
	if err != nil {
		// Single-byte code pages decode every byte; keep the name
		// readable regardless.
		return string([]rune(name))
	}
	return out
}
