// Package publishers lists who publishes datasets (api-shapes §10.3): site
// groups (the datasets they own) and users (the datasets they own without
// a group), each with the number of published datasets a viewer may see,
// searched by name and sorted by popularity or name.
package publishers
