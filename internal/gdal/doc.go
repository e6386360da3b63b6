// Package gdal is the module's only cgo binding of GDAL and of its OGR,
// OSR and CPL parts: every call into GDAL's C API is made here, behind
// Go-typed functions and types, and no other package includes a GDAL
// header or links GDAL itself (internal/archtest holds the rule). Other
// packages still use godal; only this one reads godal's private handles
// (godal.go).
//
// It runs gdal_translate and gdalwarp in process, the way their command
// lines would, but cancellable and with progress: GDAL asks a progress
// callback whether to go on as a copy advances, and that callback answers
// no once the caller's context ends, so a long copy stops within one of
// GDAL's progress steps.
//
// It is also the one place GDAL is initialised: Init registers the
// drivers and closes GDAL's ways to the network, and every package using
// GDAL calls it instead of registering drivers itself.
package gdal
