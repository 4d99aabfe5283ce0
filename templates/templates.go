// Package templates holds the text of every file informer-gen writes, one
// *.go.tmpl file per output kind, embedded at build time.
//
// Each file defines one named template, executed with a small typed struct
// from package generator (never go/types values), parsed once with
// Option("missingkey=error"). Templates hold no logic beyond if, range, with
// and template: anything computed is a method on the data.
package templates

import "embed"

// FS holds the *.go.tmpl files. It is read-only and safe for concurrent use.
//
//go:embed *.go.tmpl
var FS embed.FS
