package tilearchive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
)

// PMTiles v3 constants (spec/v3/spec.md).
const (
	headerLen = 127
	// maxRootLen is the most the root directory may take so that header
	// and root fit in the first 16,384 bytes.
	maxRootLen = 16384 - headerLen

	compressionNone = 1
	compressionGzip = 2
)

// pmtilesType is the header's tile type byte.
func pmtilesType(t TileType) byte {
	switch t {
	case TypeMVT:
		return 1
	case TypePNG:
		return 2
	case TypeJPG:
		return 3
	case TypeWebP:
		return 4
	}
	return 0
}

// entry is a directory entry: a run of tiles (RunLength > 0) or a leaf
// directory (RunLength 0).
type entry struct {
	TileID    uint64
	Offset    uint64
	Length    uint32
	RunLength uint32
}

// stored is where a distinct tile content is in the tile data.
type stored struct {
	offset uint64
	length uint32
}

// WritePMTiles walks src as o says and writes a PMTiles v3 archive to w.
// Tile data is kept in a temporary file in scratchDir (the system's
// temporary folder when empty) until the directories are known.
func WritePMTiles(ctx context.Context, w io.Writer, scratchDir string, src Source, o Options) (Stats, error) {
	box, err := checkOptions(o)
	if err != nil {
		return Stats{}, err
	}
	scratch, err := os.CreateTemp(scratchDir, "tilearchive-*.data")
	if err != nil {
		return Stats{}, fmt.Errorf("tilearchive: scratch file: %w", err)
	}
	defer func() {
		_ = scratch.Close()
		_ = os.Remove(scratch.Name())
	}()
	data := bufio.NewWriterSize(scratch, 1<<20)

	st := Stats{Bounds: box, MinZoom: -1, MaxZoom: -1}
	var entries []entry
	seen := map[digest]stored{}
	var dataLen uint64
	empty, err := walk(ctx, src, o, box, func(t *tile) error {
		st.Tiles++
		if st.MinZoom < 0 {
			st.MinZoom = t.z
		}
		st.MaxZoom = t.z
		if o.MaxTiles > 0 && st.Tiles > o.MaxTiles {
			return tooLarge("more than %d tiles", o.MaxTiles)
		}
		if len(t.data) > math.MaxUint32 {
			return fmt.Errorf("tilearchive: tile %d/%d/%d has %d bytes", t.z, t.x, t.y, len(t.data))
		}
		at, ok := seen[t.sum]
		if !ok {
			if o.MaxBytes > 0 && int64(dataLen)+int64(len(t.data)) > o.MaxBytes {
				return tooLarge("more than %d bytes of tiles", o.MaxBytes)
			}
			if _, err := data.Write(t.data); err != nil {
				return fmt.Errorf("tilearchive: scratch file: %w", err)
			}
			at = stored{offset: dataLen, length: uint32(len(t.data))}
			dataLen += uint64(len(t.data))
			seen[t.sum] = at
			st.Unique++
		}
		if n := len(entries); n > 0 {
			last := &entries[n-1]
			if last.Offset == at.offset && last.Length == at.length &&
				last.TileID+uint64(last.RunLength) == t.id && last.RunLength < math.MaxUint32 {
				last.RunLength++
				return nil
			}
		}
		entries = append(entries, entry{TileID: t.id, Offset: at.offset, Length: at.length, RunLength: 1})
		return nil
	})
	st.Empty = empty
	if err != nil {
		return st, err
	}
	seen = nil
	if st.Tiles == 0 {
		st.MinZoom, st.MaxZoom = o.MinZoom, o.MaxZoom
		return st, ErrEmpty
	}
	if err := data.Flush(); err != nil {
		return st, fmt.Errorf("tilearchive: scratch file: %w", err)
	}

	root, leaves, err := directories(entries)
	if err != nil {
		return st, err
	}
	meta, err := pmtilesMetadata(o)
	if err != nil {
		return st, err
	}
	h := header{
		rootOffset: headerLen, rootLength: uint64(len(root)),
		metadataOffset: headerLen + uint64(len(root)), metadataLength: uint64(len(meta)),
		leavesLength: uint64(len(leaves)),
		dataLength:   dataLen,
		addressed:    uint64(st.Tiles), tileEntries: uint64(len(entries)), contents: uint64(st.Unique),
		clustered: true, internal: compressionGzip, tileCompression: compressionNone,
		tileType: pmtilesType(o.Type), minZoom: byte(o.MinZoom), maxZoom: byte(o.MaxZoom),
		bounds: box,
	}
	if o.Compressed {
		h.tileCompression = compressionGzip
	}
	h.leavesOffset = h.metadataOffset + h.metadataLength
	h.dataOffset = h.leavesOffset + h.leavesLength
	h.center, h.centerZoom = center(box, o.MinZoom, o.MaxZoom)

	out := bufio.NewWriterSize(w, 1<<20)
	for _, part := range [][]byte{h.encode(), root, meta, leaves} {
		if _, err := out.Write(part); err != nil {
			return st, err
		}
	}
	if _, err := scratch.Seek(0, io.SeekStart); err != nil {
		return st, fmt.Errorf("tilearchive: scratch file: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if _, err := io.Copy(out, scratch); err != nil {
		return st, err
	}
	if err := out.Flush(); err != nil {
		return st, err
	}
	st.Bytes = int64(h.dataOffset + h.dataLength)
	return st, nil
}

// pmtilesMetadata is the archive's JSON metadata, gzip-compressed.
func pmtilesMetadata(o Options) ([]byte, error) {
	m := map[string]any{}
	for k, v := range o.Metadata {
		m[k] = v
	}
	for k, v := range map[string]string{"name": o.Name, "description": o.Description, "attribution": o.Attribution} {
		if v != "" {
			m[k] = v
		}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "overlay"
	}
	if _, ok := m["vector_layers"]; !ok && o.Type == TypeMVT {
		m["vector_layers"] = []any{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("tilearchive: metadata: %w", err)
	}
	return gzipBytes(b)
}

// center is the middle of box and the zoom a reader starts at there.
func center(box [4]float64, minZoom, maxZoom int) ([2]float64, byte) {
	c := [2]float64{(box[0] + box[2]) / 2, (box[1] + box[3]) / 2}
	// The zoom at which the box's wider side spans about one tile.
	w := math.Max(box[2]-box[0], (box[3]-box[1])*2)
	z := minZoom
	if w > 0 {
		z = int(math.Floor(math.Log2(360 / w)))
	}
	return c, byte(clampInt(z, minZoom, maxZoom))
}

// header is the 127-byte PMTiles v3 header.
type header struct {
	rootOffset, rootLength         uint64
	metadataOffset, metadataLength uint64
	leavesOffset, leavesLength     uint64
	dataOffset, dataLength         uint64
	addressed, tileEntries         uint64
	contents                       uint64
	clustered                      bool
	internal, tileCompression      byte
	tileType                       byte
	minZoom, maxZoom, centerZoom   byte
	bounds                         [4]float64
	center                         [2]float64
}

func (h header) encode() []byte {
	b := make([]byte, 0, headerLen)
	b = append(b, "PMTiles"...)
	b = append(b, 3)
	for _, v := range []uint64{h.rootOffset, h.rootLength, h.metadataOffset, h.metadataLength,
		h.leavesOffset, h.leavesLength, h.dataOffset, h.dataLength, h.addressed, h.tileEntries, h.contents} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	c := byte(0)
	if h.clustered {
		c = 1
	}
	b = append(b, c, h.internal, h.tileCompression, h.tileType, h.minZoom, h.maxZoom)
	b = appendPosition(b, h.bounds[0], h.bounds[1])
	b = appendPosition(b, h.bounds[2], h.bounds[3])
	b = append(b, h.centerZoom)
	b = appendPosition(b, h.center[0], h.center[1])
	return b
}

// appendPosition appends a longitude and a latitude as PMTiles stores
// them: little-endian int32 of ten-millionths of a degree.
func appendPosition(b []byte, lon, lat float64) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(int32(math.Round(lon*1e7))))
	return binary.LittleEndian.AppendUint32(b, uint32(int32(math.Round(lat*1e7))))
}

// encodeDirectory is the uncompressed encoding of a directory: the
// count, then delta-encoded tile IDs, run lengths, lengths and offsets
// (0 for a contiguous one, else offset+1), each a varint.
func encodeDirectory(es []entry) []byte {
	b := binary.AppendUvarint(nil, uint64(len(es)))
	var last uint64
	for _, e := range es {
		b = binary.AppendUvarint(b, e.TileID-last)
		last = e.TileID
	}
	for _, e := range es {
		b = binary.AppendUvarint(b, uint64(e.RunLength))
	}
	for _, e := range es {
		b = binary.AppendUvarint(b, uint64(e.Length))
	}
	for i, e := range es {
		if i > 0 && e.Offset == es[i-1].Offset+uint64(es[i-1].Length) {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, e.Offset+1)
		}
	}
	return b
}

// decodeDirectory reads an uncompressed directory (for tests and
// checks).
func decodeDirectory(b []byte) ([]entry, error) {
	r := bytes.NewReader(b)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("tilearchive: directory of %d entries in %d bytes", n, len(b))
	}
	es := make([]entry, n)
	var last uint64
	for i := range es {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		last += v
		es[i].TileID = last
	}
	for i := range es {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		es[i].RunLength = uint32(v)
	}
	for i := range es {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		es[i].Length = uint32(v)
	}
	for i := range es {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		if v == 0 && i > 0 {
			es[i].Offset = es[i-1].Offset + uint64(es[i-1].Length)
		} else {
			es[i].Offset = v - 1
		}
	}
	return es, nil
}

// directories builds the gzip-compressed root directory and the leaf
// directories section: all entries in the root when it fits, else
// leaves of leafSize entries, doubling leafSize until the root of
// leaf pointers fits.
func directories(es []entry) (root, leaves []byte, err error) {
	root, err = gzipBytes(encodeDirectory(es))
	if err != nil {
		return nil, nil, err
	}
	if len(root) <= maxRootLen {
		return root, nil, nil
	}
	for leafSize := 4096; ; leafSize *= 2 {
		var ptrs []entry
		var buf bytes.Buffer
		for i := 0; i < len(es); i += leafSize {
			part := es[i:min(i+leafSize, len(es))]
			leaf, err := gzipBytes(encodeDirectory(part))
			if err != nil {
				return nil, nil, err
			}
			ptrs = append(ptrs, entry{TileID: part[0].TileID, Offset: uint64(buf.Len()), Length: uint32(len(leaf))})
			buf.Write(leaf)
		}
		root, err = gzipBytes(encodeDirectory(ptrs))
		if err != nil {
			return nil, nil, err
		}
		if len(root) <= maxRootLen {
			return root, buf.Bytes(), nil
		}
	}
}

// gzipBytes gzip-compresses b.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
