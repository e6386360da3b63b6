package gzipbody

// #cgo LDFLAGS: -ldeflate
// #include <libdeflate.h>
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// level is libdeflate's compression level: its fastest.
const level = 1

// compressor is one libdeflate compressor (C memory, not safe for
// concurrent use), freed when the pool drops it.
type compressor struct {
	c       *C.struct_libdeflate_compressor
	scratch []byte // output space, reused; the result is copied out at its size
}

var compressors = sync.Pool{New: func() any {
	c := &compressor{c: C.libdeflate_alloc_compressor(level)}
	if c.c == nil {
		panic("gzipbody: libdeflate could not allocate a compressor")
	}
	runtime.AddCleanup(c, func(p *C.struct_libdeflate_compressor) { C.libdeflate_free_compressor(p) }, c.c)
	return c
}}

// maxScratch is the most output space a pooled compressor keeps.
const maxScratch = 1 << 20

// gzip compresses body into a new slice of the compressed size.
func (c *compressor) gzip(body []byte) []byte {
	var src unsafe.Pointer
	if len(body) > 0 {
		src = unsafe.Pointer(&body[0])
	}
	bound := int(C.libdeflate_gzip_compress_bound(c.c, C.size_t(len(body))))
	if cap(c.scratch) < bound {
		c.scratch = make([]byte, bound)
	}
	out := c.scratch[:bound]
	n := int(C.libdeflate_gzip_compress(c.c, src, C.size_t(len(body)), unsafe.Pointer(&out[0]), C.size_t(bound)))
	runtime.KeepAlive(body)
	if n == 0 {
		// The bound is the worst case: this cannot happen.
		panic("gzipbody: libdeflate's output exceeded its bound")
	}
	gz := append([]byte(nil), out[:n]...)
	if cap(c.scratch) > maxScratch {
		c.scratch = nil
	}
	return gz
}
