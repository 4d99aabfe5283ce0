// Package docsnippets holds, in its test files, the Go code that README.md
// and docs/*.md show, as regions ("// doc:begin NAME" … "// doc:end NAME")
// of functions that compile against the example project's generated code:
// CI builds them with the module (go vet, go test), and docs/snippets_test.go
// checks that each doc block equals its region. Edit a region here and run
// go test ./docs -run Snippets -update in the repository root to copy it into
// the docs.
package docsnippets
