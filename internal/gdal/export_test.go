package gdal

// SetRecordBuffer sets the size of new RecordReaders' buffers until the
// returned function restores it.
func SetRecordBuffer(n int) (restore func()) {
	old := recordBuffer
	recordBuffer = n
	return func() { recordBuffer = old }
}
