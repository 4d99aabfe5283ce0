package internal

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/informer-gen/informer-gen/"

// layers places every package of runtime/ in its layer (see the package
// doc): parts 0, primitives 1, engines 2, assemblies 3.
var layers = map[string]int{
	"runtime/internal":           0, // this map
	"runtime/internal/budget":    0,
	"runtime/internal/cache":     0,
	"runtime/internal/codecopts": 0,
	"runtime/internal/fifo":      0,
	"runtime/internal/known":     0,
	"runtime/internal/listpage":  0,
	"runtime/internal/logctx":    0,
	"runtime/internal/redact":    0,
	"runtime/internal/relist":    0,
	"runtime/internal/scope":     0,
	"runtime/internal/settings":  0,

	"runtime/store":           1,
	"runtime/wire":            1,
	"runtime/wire/corev1":     1,
	"runtime/reflector":       1,
	"runtime/listwatch":       1,
	"runtime/workqueue":       1,
	"runtime/freshness":       1,
	"runtime/clientsetconfig": 1,
	"runtime/runtimetest":     1,

	"runtime/internal/engine/core":       2,
	"runtime/internal/engine/restsource": 2,
	"runtime/internal/engine/untypedlw":  2,
	"runtime/internal/leasefake":         2, // over runtimetest, for shard's and fleet's tests

	"runtime/informer":          3,
	"runtime/informer/clientgo": 3,
	"runtime/factory":           3,
	"runtime/shard":             3,
	"runtime/fleet":             3,
}

var layerNames = [...]string{"part", "primitive", "engine", "assembly"}

// TestLayers: no package of runtime/ imports one of a higher layer, and
// every package with Go files is placed in one. Test files are left out:
// a part's tests may use a primitive.
func TestLayers(t *testing.T) {
	root, err := filepath.Abs("..") // runtime/
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{} // package -> runtime packages it imports
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(filepath.Dir(root), filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			ip := strings.Trim(im.Path.Value, `"`)
			if strings.HasPrefix(ip, module+"runtime/") {
				imports[pkg][strings.TrimPrefix(ip, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		lp, ok := layers[p]
		if !ok {
			t.Errorf("%s has no layer: place it in runtime/internal's map (doc.go and layers)", p)
			continue
		}
		for ip := range imports[p] {
			li, ok := layers[ip]
			if !ok {
				continue // reported as a package of its own
			}
			if li > lp {
				t.Errorf("%s (%s) imports %s (%s, a higher layer)", p, layerNames[lp], ip, layerNames[li])
			}
		}
	}
	for p := range layers {
		if imports[p] == nil && p != "runtime/internal/leasefake" {
			t.Errorf("layers places %s, which has no Go files", path.Clean(p))
		}
	}
}
