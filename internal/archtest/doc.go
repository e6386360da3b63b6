// Package archtest holds the tests of the repository's architecture as a
// whole: docs/architecture.md's package map names every package and only
// packages that exist, and imports follow the layering rule. It holds no
// code of its own.
package archtest
