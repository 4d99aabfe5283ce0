package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func parseOne(t testing.TB, text string) (marker, bool, *Diagnostic) {
	fset := token.NewFileSet()
	f := fset.AddFile("types.go", -1, len(text)+10)
	f.SetLines([]int{0})
	return parseMarker(fset, &ast.Comment{Slash: token.Pos(f.Base()), Text: text}, func(s string) string { return s })
}

func TestParseMarker(t *testing.T) {
	tests := []struct {
		text, name, value string
		args              map[string]string
		isMarker          bool
		diag              string
	}{
		{text: "// +genclient", name: "genclient", isMarker: true},
		{text: "//+genclient:onlyVerbs=get,list,watch", name: "genclient:onlyVerbs", value: "get,list,watch", isMarker: true},
		{text: "// +informer-gen:index:name=Node,field=.spec.nodeName", name: "informer-gen:index",
			args: map[string]string{"name": "Node", "field": ".spec.nodeName"}, isMarker: true},
		{text: `// +kubebuilder:resource:scope=Cluster,path="gizmos"`, name: "kubebuilder:resource",
			args: map[string]string{"scope": "Cluster", "path": "gizmos"}, isMarker: true},
		{text: "// plain comment", isMarker: false},
		{text: "// +1 is not a marker", isMarker: false},
		{text: "/* +genclient */", isMarker: false},
		{text: "// +informer-gen:idx:name=A", isMarker: true, diag: `unknown marker key +informer-gen:idx (did you mean "index"?)`},
		{text: "// +genclient:noVerb", isMarker: true, diag: `unknown marker +genclient:noVerb (did you mean "noVerbs"?)`},
		{text: "// +groupname=foo", isMarker: true, diag: `unknown marker +groupname (did you mean "+groupName"?)`},
		{text: "// +optional", name: "optional", isMarker: true},
	}
	for _, tt := range tests {
		m, ok, d := parseOne(t, tt.text)
		if ok != tt.isMarker {
			t.Errorf("%q: isMarker = %v", tt.text, ok)
			continue
		}
		if tt.diag != "" {
			if d == nil || !strings.HasSuffix(d.String(), tt.diag) {
				t.Errorf("%q: diag = %v, want %q", tt.text, d, tt.diag)
			}
			continue
		}
		if d != nil {
			t.Errorf("%q: unexpected diag %v", tt.text, d)
		}
		if !ok {
			continue
		}
		if m.name != tt.name || m.value != tt.value {
			t.Errorf("%q: name %q value %q", tt.text, m.name, m.value)
		}
		for k, v := range tt.args {
			if a, ok := m.arg(k); !ok || a.value != v {
				t.Errorf("%q: arg %s = %q, want %q", tt.text, k, a.value, v)
			}
		}
	}
	// Argument positions point at the key, for precise messages.
	m, _, _ := parseOne(t, "// +informer-gen:index:name=Node,feild=.spec.x")
	if a, _ := m.arg("feild"); a.pos.Column != strings.Index("// +informer-gen:index:name=Node,feild=.spec.x", "feild")+1 {
		t.Errorf("feild column = %d", a.pos.Column)
	}
}

// The markers stage never panics, whatever the comment text.
func FuzzMarkers(f *testing.F) {
	for _, s := range []string{
		"+genclient", "+informer-gen:index:name=,field=", "+informer-gen:index:,,,=", "+informer-gen:",
		"+genclient:", "+kubebuilder:resource:", "+=", "+informer-gen:index:name=A,field=.a..b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\n\r") || strings.Contains(s, "*/") {
			return
		}
		src := "package p\n\n// " + s + "\ntype T struct{}\n\n// " + s + "\nvar V int\n"
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
		if err != nil {
			return
		}
		collectMarkers(fset, []*ast.File{file}, func(s string) string { return s })
	})
}

// TestPickGroupName: doc.go's +groupName wins over any other file's (as
// code-generator, which reads doc.go alone), each other value a warning;
// without doc.go, or within it, different values are errors.
func TestPickGroupName(t *testing.T) {
	at := func(file string, line int, value string) marker {
		return marker{pos: token.Position{Filename: "apis/x/v1/" + file, Line: line, Column: 4}, name: "groupName", value: value}
	}
	for _, tc := range []struct {
		name          string
		in            []marker
		want          string
		errs, warns   int
		wantWarningAt string
	}{
		{name: "none"},
		{name: "one", in: []marker{at("register.go", 3, "a.io")}, want: "a.io"},
		{name: "same twice", in: []marker{at("doc.go", 2, "a.io"), at("register.go", 3, "a.io")}, want: "a.io"},
		{name: "doc.go wins, after", in: []marker{at("a_register.go", 3, "b.io"), at("doc.go", 2, "a.io"), at("z.go", 1, "c.io")},
			want: "a.io", warns: 2, wantWarningAt: "apis/x/v1/a_register.go:3:4"},
		{name: "no doc.go", in: []marker{at("register.go", 3, "a.io"), at("z.go", 1, "b.io")}, want: "a.io", errs: 1},
		{name: "twice in doc.go", in: []marker{at("doc.go", 2, "a.io"), at("doc.go", 3, "b.io"), at("register.go", 1, "c.io")},
			want: "a.io", errs: 1, warns: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := pickGroupName(tc.in, nil)
			if (got == nil) != (tc.want == "") || got != nil && got.value != tc.want {
				t.Errorf("picked %v, want %q", got, tc.want)
			}
			var errs, warns int
			for _, d := range diags {
				if d.Warning {
					warns++
				} else {
					errs++
				}
			}
			if errs != tc.errs || warns != tc.warns {
				t.Errorf("%d errors and %d warnings, want %d and %d: %v", errs, warns, tc.errs, tc.warns, diags)
			}
			if tc.wantWarningAt != "" && (len(diags) == 0 || posString(diags[0].Pos) != tc.wantWarningAt) {
				t.Errorf("first diagnostic %v, want one at %s", diags, tc.wantWarningAt)
			}
		})
	}
}
