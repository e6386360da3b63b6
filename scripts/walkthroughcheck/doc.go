// Package walkthroughcheck runs the walkthrough of docs/walkthrough.md, as
// the page writes it, against a fresh server (scripts/walkthrough.sh), so
// the examples a newcomer pastes cannot drift from what the service
// answers. It holds only its test.
package walkthroughcheck
