package gdal

/*
#include <stdlib.h>
*/
import "C"

import "unsafe"

// cStrings is a NULL-terminated C array of copies of ss, and its free.
func cStrings(ss []string) (**C.char, func()) {
	arr := (**C.char)(C.calloc(C.size_t(len(ss)+1), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	items := unsafe.Slice(arr, len(ss)+1)
	for i, s := range ss {
		items[i] = C.CString(s)
	}
	return arr, func() {
		for _, p := range items[:len(ss)] {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(arr))
	}
}
