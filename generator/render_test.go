package generator

import (
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

func TestMissingKeyIsAnError(t *testing.T) {
	tmpl := template.Must(template.New("").Option("missingkey=error").Parse(`{{define "m"}}package p // {{.nope}}{{end}}`))
	if _, err := execute(tmpl, "m", map[string]string{}, nil); err == nil || !strings.Contains(err.Error(), "m.go.tmpl") {
		t.Errorf("missing key: err = %v", err)
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
	if specs[len(specs)-1].Path != storePath || specs[len(specs)-1].Alias != "" {
		t.Errorf("specs not sorted or runtime alias kept: %+v", specs)
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
