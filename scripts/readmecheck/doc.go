// Package readmecheck runs the README's walkthrough, as the README writes
// it, against a fresh server (scripts/readme-walkthrough.sh), so the
// examples a newcomer pastes cannot drift from what the service answers.
// It holds only its test.
package readmecheck
