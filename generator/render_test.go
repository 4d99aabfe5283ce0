package generator

import (
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"
)

// A template that yields invalid Go is reported with its name, the output
// line and the offending text, not as a bare go/format error.
func TestFormatErrorNamesTemplateAndLine(t *testing.T) {
	tmpl := template.Must(template.New("").Option("missingkey=error").Parse(
		`{{define "broken"}}package p

func f() {
	return {{.}} +
}
{{end}}`))
	_, err := execute(tmpl, "broken", "1", nil)
	if err == nil {
		t.Fatal("invalid Go was formatted without error")
	}
	for _, want := range []string{"broken.go.tmpl", "output line", "template output line 5", `"}"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A template that reads a field its data lacks fails, naming the template,
// with each real template name and the data type render executes it with
// (missingkey=error covers maps only; these are structs).
func TestMissingFieldIsAnError(t *testing.T) {
	v := &Version{Group: &Group{Name: "example.com"}, Name: "v1"}
	for name, data := range map[string]any{
		"listers":         versionData{Package: "v1", Version: v},
		"informers":       versionData{Package: "v1", Version: v},
		"group":           groupData{Package: "example", Group: v.Group},
		"factory":         factoryData{Package: "informers"},
		"generic":         genericData{Package: "informers"},
		"decode_protobuf": protobufData{Package: "v1", Version: v},
	} {
		real, err := parsedTemplates()
		if err != nil {
			t.Fatal(err)
		}
		tmpl := template.Must(template.Must(real.Clone()).New(name).Parse(`{{define "` + name + `"}}package {{.Package}} // {{.NoSuchField}}{{end}}`))
		_, err = execute(tmpl, name, data, nil)
		if err == nil || !strings.Contains(err.Error(), name+".go.tmpl") || !strings.Contains(err.Error(), "NoSuchField") {
			t.Errorf("%s with %T: err = %v, want one naming %s.go.tmpl and NoSuchField", name, data, err, name)
		}
	}
}

// The lister template spells out a field index func for every leaf shape of
// a FieldPath, with nil checks on the way.
func TestFieldIndexBodies(t *testing.T) {
	g := &Group{Name: "example.com", GoName: "Example", PkgName: "example"}
	v := &Version{Group: g, Name: "v1", GoName: "V1", APIPath: "example.com/api/v1", GVVar: "SchemeGroupVersion"}
	k := &Kind{Version: v, Name: "Foo", Plural: "Foos", Resource: "foos", Namespaced: true,
		api: &apiPackage{path: v.APIPath, gvVar: v.GVVar}}
	v.Kinds, g.Versions = []*Kind{k}, []*Version{v}
	steps := []FieldStep{{Selector: "obj.Spec", Pointer: true}, {Selector: "obj.Spec.X"}}
	want := map[string]string{}
	for _, c := range []struct {
		name    string
		leaf    Leaf
		convert bool
		body    string
	}{
		{"String", LeafString, false, "return store.Values(obj.Spec.X), nil"},
		{"Named", LeafString, true, "return store.Values(string(obj.Spec.X)), nil"},
		{"Pointer", LeafPointer, false, "if obj.Spec.X == nil {\n\t\treturn nil, nil\n\t}\n\treturn store.Values(*obj.Spec.X), nil"},
		{"NamedPointer", LeafPointer, true, "if obj.Spec.X == nil {\n\t\treturn nil, nil\n\t}\n\treturn store.Values(string(*obj.Spec.X)), nil"},
		{"Slice", LeafSlice, false, "return store.Values(obj.Spec.X...), nil"},
		{"NamedSlice", LeafSlice, true, "return store.Values(obj.Spec.X...), nil"},
		{"PointerSlice", LeafPointerSlice, false, "return store.PointerValues(obj.Spec.X), nil"},
	} {
		k.Indexes = append(k.Indexes, &Index{Kind: k, Name: c.name, GoName: c.name, Source: ".spec.x", Match: "whose .spec.x is",
			Field: &FieldPath{Steps: steps, Leaf: c.leaf, Convert: c.convert}})
		want[c.name] = "func Foo" + c.name + "IndexFunc(obj *v1.Foo) ([]string, error) {\n\tif obj.Spec == nil {\n\t\treturn nil, nil\n\t}\n\t" + c.body + "\n}\n"
	}
	files, err := render(&Model{OutputPkg: "example.com/out", Groups: []*Group{g}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listers string
	for _, f := range files {
		if f.path == "listers/example/v1/listers.go" {
			listers = string(f.content)
		}
	}
	for name, body := range want {
		if !strings.Contains(listers, body) {
			t.Errorf("index %s: listers.go lacks\n%s\n--- listers.go:\n%s", name, body, listers)
		}
	}
}

func TestTemplatesParse(t *testing.T) {
	tmpl, err := parsedTemplates()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"listers", "informers", "group", "factory", "generic"} {
		if tmpl.Lookup(name) == nil {
			t.Errorf("template %q is not defined", name)
		}
	}
}

func TestImportsAliases(t *testing.T) {
	im := newImports("version")
	if a := im.add(storePath, "store"); a != "store" {
		t.Errorf("store alias = %q", a)
	}
	if a := im.add("example.com/apis/store/v1", "store"); a != "store2" {
		t.Errorf("colliding alias = %q, want store2", a)
	}
	if a := im.add("example.com/x/version", "version"); a != "version2" {
		t.Errorf("reserved alias = %q, want version2", a)
	}
	if a := im.add("example.com/apis/my-group.io", "my-group.io"); a != "mygroupio" {
		t.Errorf("sanitized alias = %q", a)
	}
	specs := im.specs()
	if !slices.IsSortedFunc(specs, func(a, b importSpec) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("specs not sorted: %+v", specs)
	}
	if i := slices.IndexFunc(specs, func(s importSpec) bool { return s.Path == storePath }); i < 0 || specs[i].Alias != "" {
		t.Errorf("runtime store import missing or aliased: %+v", specs)
	}
}

func TestGoIdentifierAndGroupPkgName(t *testing.T) {
	for in, want := range map[string]string{"samplecontroller": "Samplecontroller", "my-group": "MyGroup", "core": "Core", "ChaosMesh": "ChaosMesh"} {
		if got := goIdentifier(in); got != want {
			t.Errorf("goIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
	if got := groupPkgName("Internal", "k8s.io/api/apiserverinternal/v1alpha1"); got != "apiserverinternal" {
		t.Errorf("groupPkgName(Internal) = %q", got)
	}
	if got := groupPkgName("Type", "example.com/apis/type/v1"); got != "typegroup" {
		t.Errorf("groupPkgName(Type) = %q", got)
	}
	if got := groupPkgName("Apps", "example.com/apis/apps/v1"); got != "apps" {
		t.Errorf("groupPkgName(Apps) = %q", got)
	}
}

// A file imports what its output refers to, whichever branches of its
// template ran: every fixed import is offered and the unused ones dropped,
// and an unused API package (aliased) is dropped too.
func TestImportsFollowTheOutput(t *testing.T) {
	tmpl := template.Must(template.New("").Option("missingkey=error").Parse(`{{define "t"}}package p

import (
{{- range .Imports}}
	{{.Alias}} "{{.Path}}"
{{- end}}
)
{{if .Store}}
var _ store.Indexers[any]
{{end}}
{{- if .API}}
var _ {{.Alias}}.Foo
{{end}}
// labels.Selector in a comment is no use of labels.
{{end}}`))
	for _, tc := range []struct {
		store, api bool
		want       []string
	}{
		{false, false, nil},
		{true, false, []string{storePath}},
		{false, true, []string{"example.com/api/v1"}},
		{true, true, []string{"example.com/api/v1", storePath}},
	} {
		im := newImports()
		alias := im.add("example.com/api/v1", "v1")
		out, err := execute(tmpl, "t", map[string]any{"Imports": im.specs(), "Store": tc.store, "API": tc.api, "Alias": alias}, nil)
		if err != nil {
			t.Fatalf("store=%v api=%v: %v", tc.store, tc.api, err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", out, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			got = append(got, p)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("store=%v api=%v: imports %q, want %q\n%s", tc.store, tc.api, got, tc.want, out)
		}
	}
}
