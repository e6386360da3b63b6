package featurerows

import (
	"encoding/binary"
	"math"
)

// Little-endian ISO WKB builders for tests.

func wkbHead(b []byte, typ uint32) []byte {
	b = append(b, 1)
	return binary.LittleEndian.AppendUint32(b, typ)
}

func wkbCoords(b []byte, cs ...float64) []byte {
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c))
	}
	return b
}

func wkbPoint(x, y float64) []byte { return wkbCoords(wkbHead(nil, 1), x, y) }

// wkbLine builds a LineString from x, y pairs.
func wkbLine(xy ...float64) []byte {
	b := binary.LittleEndian.AppendUint32(wkbHead(nil, 2), uint32(len(xy)/2))
	return wkbCoords(b, xy...)
}

// wkbPolygon builds a Polygon whose rings are lists of x, y pairs.
func wkbPolygon(rings ...[]float64) []byte {
	b := binary.LittleEndian.AppendUint32(wkbHead(nil, 3), uint32(len(rings)))
	for _, r := range rings {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r)/2))
		b = wkbCoords(b, r...)
	}
	return b
}

// wkbCollection builds a collection of the given type (4-7) from parts.
func wkbCollection(typ uint32, parts ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(wkbHead(nil, typ), uint32(len(parts)))
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
