// Package apis holds the versions of the gadgets API: a package with a doc
// comment and no types, beside its version packages, that ./apis/...
// matches too.
package apis
