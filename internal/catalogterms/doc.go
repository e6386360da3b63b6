// Package catalogterms holds the rules of the catalogue's reference terms:
// licences (their order, the Creative Commons slugs that name them, deed
// URLs) and categories (keys whose parents are their prefixes), a
// per-request cache of both tables, and the checks a dataset version's
// tags, categories and licence pass before they are stored.
package catalogterms
