// Package archtest holds the tests of the repository's architecture as a
// whole: docs/architecture.md's package map names every package and only
// packages that exist, imports follow the layering rule, and the REST and
// HTML doors hold no Ent client. It holds no code of its own.
package archtest
