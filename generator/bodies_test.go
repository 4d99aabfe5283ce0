package generator

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBlankFuncBodies: for real Go files (the standard library's go/ and
// net/http trees, and this package), parsing the blanked source gives the
// same declarations at the same positions as parsing the file and dropping
// the bodies afterwards.
func TestBlankFuncBodies(t *testing.T) {
	var files []string
	for _, dir := range []string{filepath.Join(runtime.GOROOT(), "src", "go"), filepath.Join(runtime.GOROOT(), "src", "net", "http"), "."} {
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 100 {
		t.Fatalf("only %d files found", len(files))
	}
	changed := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blanked := blankFuncBodies(src)
		if len(blanked) != len(src) {
			t.Fatalf("%s: length changed", f)
		}
		if !bytes.Equal(blanked, src) {
			changed++
		}
		want, got := declarations(t, f, src), declarations(t, f, blanked)
		if want != got {
			t.Errorf("%s: declarations differ after blanking bodies", f)
		}
	}
	if changed < len(files)/2 {
		t.Errorf("bodies blanked in %d of %d files", changed, len(files))
	}
	src := []byte("package p\n\nfunc f(x struct{ a int }) interface{ M() } {\n\treturn nil\n}\n\nfunc g[T interface{ ~int }]()\n")
	want := "package p\n\nfunc f(x struct{ a int }) interface{ M() } {\n           \n}\n\nfunc g[T interface{ ~int }]()\n"
	if got := string(blankFuncBodies(src)); got != want {
		t.Errorf("blankFuncBodies:\n got %q\nwant %q", got, want)
	}
}

func declarations(t *testing.T, name string, src []byte) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return "parse error: " + err.Error()
	}
	var b bytes.Buffer
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			d.Body = nil
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				continue // initializers may hold func literals, whose bodies are blanked too
			}
		}
		b.WriteString(fset.Position(d.Pos()).String() + " ")
		printer.Fprint(&b, fset, d)
		b.WriteByte('\n')
	}
	return b.String()
}
