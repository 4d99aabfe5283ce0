package generator

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// addCRDs reads the CRDs of a manifest file: v1 and v1beta1, among other
// documents; Helm templates and other kinds are skipped; two files that
// disagree leave a conflict.
func TestAddCRDs(t *testing.T) {
	const bundle = `apiVersion: v1
kind: Namespace
metadata:
  name: system
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: eventbus.argoproj.io
spec:
  group: argoproj.io
  names:
    kind: EventBus
    plural: eventbus
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
  - name: v1alpha0
    served: false
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: clusterthings.example.com
spec:
  group: example.com
  version: v1
  names:
    kind: ClusterThing
    plural: clusterthings
  scope: Cluster
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {{ .Values.name }}
spec:
  group: {{ .Values.group }}
  names: {kind: Templated, plural: {{ .Values.plural }}}
`
	crds := map[crdKey]*crdNames{}
	addCRDs(crds, []byte(bundle), "config/crds.yaml")
	bus := crds[crdKey{"argoproj.io", "EventBus"}]
	if bus == nil || bus.plural != "eventbus" || !bus.namespaced || !bus.versions["v1alpha1"] || bus.versions["v1alpha0"] || bus.file != "config/crds.yaml" {
		t.Errorf("EventBus: %+v", bus)
	}
	thing := crds[crdKey{"example.com", "ClusterThing"}]
	if thing == nil || thing.plural != "clusterthings" || thing.namespaced || !thing.versions["v1"] {
		t.Errorf("ClusterThing (v1beta1): %+v", thing)
	}
	if len(crds) != 2 {
		t.Errorf("%d CRDs, want 2 (the template and the Namespace are not CRDs)", len(crds))
	}
	addCRDs(crds, []byte(strings.Replace(bundle, "plural: eventbus", "plural: eventbuses", 1)), "charts/crds.yaml")
	if bus.conflict != "charts/crds.yaml" {
		t.Errorf("conflict: %q, want the second file", bus.conflict)
	}
	addCRDs(crds, []byte(bundle), "again.yaml")
	if thing.conflict != "" {
		t.Errorf("a file that agrees is a conflict: %q", thing.conflict)
	}
}

// The kinds of a module other than the main one take the resource and scope
// its CRD manifests give them, with a warning; an explicit
// --plural-exceptions wins, with a warning; manifests that disagree, and the
// main module's own manifests, change nothing.
func TestModuleCRDsNameResources(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// The samplecontroller case's API package (Foo, namespaced, foos), in
	// a module example.com/lib that the main module replaces with a
	// directory.
	app := sampleModule(t, func(b []byte) []byte { return b })
	lib := t.TempDir()
	if err := os.Rename(filepath.Join(app, "input"), filepath.Join(lib, "input")); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, "go.mod"), bytes.Replace(gomod, []byte("module example.com/sample"), []byte("module example.com/lib"), 1))
	writeFile(t, filepath.Join(app, "go.mod"), append(gomod, []byte("\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => "+lib+"\n")...))
	crdOf := func(kind, plural, scope string, served bool) string {
		s := "false"
		if served {
			s = "true"
		}
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural + ".samplecontroller.k8s.io\nspec:\n  group: samplecontroller.k8s.io\n  names:\n    kind: " + kind + "\n    plural: " + plural + "\n  scope: " + scope + "\n  versions:\n  - name: v1alpha1\n    served: " + s + "\n"
	}
	crd := func(plural, scope string, served bool) string { return crdOf("Foo", plural, scope, served) }
	register := filepath.Join(lib, "input", "apis", "samplecontroller", "v1alpha1", "register.go")
	registerGo, err := os.ReadFile(register)
	if err != nil {
		t.Fatal(err)
	}
	const input = "example.com/lib/input/apis/..."
	informers := filepath.Join(app, "generated", "informers", "samplecontroller", "v1alpha1", "informers.go")
	for _, c := range []struct {
		name      string
		manifests map[string]string // by path in lib
		// registerAs, when set, is the kind the package registers Foo
		// as, with AddKnownTypeWithName.
		registerAs string
		flags      Config
		inputs     []string
		resource   string
		namespaced bool
		warnings   []string // each a substring of one warning
	}{
		{
			name:      "plural and scope from the CRD",
			manifests: map[string]string{"config/crd/foos.yaml": crd("fooz", "Cluster", true)},
			resource:  "fooz",
			warnings: []string{
				`kind Foo is served as resource "fooz", as its CRD config/crd/foos.yaml (module ` + lib + `) names it, not "foos"`,
				"its CRD config/crd/foos.yaml (module " + lib + ") makes kind Foo cluster-scoped, not namespaced",
			},
		},
		{
			name:       "--plural-exceptions wins",
			manifests:  map[string]string{"config/crd/foos.yaml": crd("fooz", "Namespaced", true)},
			flags:      Config{PluralExceptions: map[string]string{"Foo": "Foos"}},
			resource:   "foos",
			namespaced: true,
			warnings:   []string{`but --plural-exceptions makes it "foos"`},
		},
		{
			name:       "--plural-exceptions agrees",
			manifests:  map[string]string{"config/crd/foos.yaml": crd("fooz", "Namespaced", true)},
			flags:      Config{PluralExceptions: map[string]string{"Foo": "Fooz"}},
			resource:   "fooz",
			namespaced: true,
		},
		{
			name:       "version not served",
			manifests:  map[string]string{"config/crd/foos.yaml": crd("foos", "Namespaced", false)},
			resource:   "foos",
			namespaced: true,
			warnings:   []string{"does not serve version v1alpha1 of kind Foo (it serves none)"},
		},
		{
			name: "manifests that disagree",
			manifests: map[string]string{
				"config/crd/foos.yaml":       crd("fooz", "Cluster", true),
				"deploy/old/foos.yaml":       crd("foos", "Namespaced", true),
				"testdata/fixture/foos.yaml": crd("other", "Namespaced", true),
			},
			resource:   "foos",
			namespaced: true,
		},
		{
			// Karmada's chart keeps its 19 CRDs, and only them, under
			// charts/karmada/_crds, so that Helm does not install them.
			name:      "a directory named with a leading underscore",
			manifests: map[string]string{"charts/lib/_crds/bases/foos.yaml": crd("fooz", "Cluster", true)},
			resource:  "fooz",
			warnings: []string{
				`kind Foo is served as resource "fooz", as its CRD charts/lib/_crds/bases/foos.yaml (module ` + lib + `) names it, not "foos"`,
				"its CRD charts/lib/_crds/bases/foos.yaml (module " + lib + ") makes kind Foo cluster-scoped, not namespaced",
			},
		},
		{
			// Zalando's postgres-operator registers Postgresql as kind
			// "postgresql", which its CRD names.
			name:       "a kind registered under another name",
			registerAs: "foo",
			manifests:  map[string]string{"config/crd/foos.yaml": crdOf("foo", "fooz", "Cluster", true)},
			resource:   "fooz",
			warnings: []string{
				`kind Foo is served as resource "fooz", as its CRD config/crd/foos.yaml (module ` + lib + `) names it, not "foos"`,
				"its CRD config/crd/foos.yaml (module " + lib + ") makes kind Foo cluster-scoped, not namespaced",
			},
		},
		{
			name:       "fixtures are not manifests",
			manifests:  map[string]string{"testdata/fixture/foos.yaml": crd("fooz", "Cluster", true)},
			resource:   "foos",
			namespaced: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, dir := range []string{"charts", "config", "deploy", "testdata"} {
				if err := os.RemoveAll(filepath.Join(lib, dir)); err != nil {
					t.Fatal(err)
				}
			}
			for p, m := range c.manifests {
				writeFile(t, filepath.Join(lib, filepath.FromSlash(p)), []byte(m))
			}
			reg := registerGo
			if c.registerAs != "" {
				reg = bytes.Replace(reg, []byte("\t\t&Foo{},\n"), nil, 1)
				reg = bytes.Replace(reg, []byte("\tmetav1.AddToGroupVersion"),
					[]byte("\tscheme.AddKnownTypeWithName(SchemeGroupVersion.WithKind(\""+c.registerAs+"\"), &Foo{})\n\tmetav1.AddToGroupVersion"), 1)
				if bytes.Equal(reg, registerGo) || !bytes.Contains(reg, []byte("AddKnownTypeWithName")) {
					t.Fatal("register.go was not rewritten")
				}
			}
			writeFile(t, register, reg)
			var warnings bytes.Buffer
			cfg := c.flags
			cfg.Inputs, cfg.OutputDir, cfg.WorkDir, cfg.Warnings = []string{input}, filepath.Join(app, "generated"), app, &warnings
			if err := Run(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			checkResource(t, informers, c.resource, c.namespaced)
			got := warnings.String()
			for _, w := range c.warnings {
				if !strings.Contains(got, w) {
					t.Errorf("warnings lack %q:\n%s", w, got)
				}
			}
			if n := strings.Count(got, "warning:"); n != len(c.warnings) {
				t.Errorf("%d warnings, want %d:\n%s", n, len(c.warnings), got)
			}
		})
	}

	t.Run("the main module's manifests", func(t *testing.T) {
		if err := os.Rename(filepath.Join(lib, "input"), filepath.Join(app, "input")); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(app, "config", "crd", "foos.yaml"), []byte(crd("fooz", "Cluster", true)))
		var warnings bytes.Buffer
		if err := Run(context.Background(), Config{Inputs: []string{"./input/apis/..."}, OutputDir: filepath.Join(app, "generated"), WorkDir: app, Warnings: &warnings}); err != nil {
			t.Fatal(err)
		}
		checkResource(t, informers, "foos", true)
		if warnings.Len() > 0 {
			t.Errorf("warnings: %s", warnings.String())
		}
	})
}

// checkResource checks the resource and scope of Foo's Type in the
// generated informers.go.
func checkResource(t *testing.T, informers, resource string, namespaced bool) {
	t.Helper()
	src, err := os.ReadFile(informers)
	if err != nil {
		t.Fatal(err)
	}
	want := `WithResource("` + resource + `")`
	if !bytes.Contains(src, []byte(want)) {
		t.Errorf("informers.go lacks %s", want)
	}
	scope := "Namespaced:  true,"
	if !namespaced {
		scope = "Namespaced:  false,"
	}
	if !bytes.Contains(src, []byte(scope)) {
		t.Errorf("informers.go lacks %q", scope)
	}
}

// crdLayouts are CRD manifests laid out as generators and hands write them,
// and as the schema cut must not misread (crdLayoutsCut says which it cuts).
var crdLayouts = map[string]string{
	"controller-gen v1": `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.19.0
  name: foos.example.com
spec:
  group: example.com
  names:
    kind: Foo
    listKind: FooList
    plural: foos
    singular: foo
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: |-
          Foo is a thing.
          versions:
          - name: v9
        properties:
          spec:
            properties:
              scope:
                type: string
# a comment at column 0 inside the schema
              names:
                items:
                  type: string
                type: array

                enum: [a,
                  b]
            type: object
        type: object
    served: true
    storage: true
    subresources:
      status: {}
  - name: v2
    schema:
      openAPIV3Schema:
        type: object
    served: false
`,
	"schema key first in its version": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.com
  names: {kind: Bar, plural: barz}
  scope: Cluster
  versions:
  - name: v1beta1
    served: false
  -   openAPIV3Schema:
        type: object
        properties:
          name: {type: string}
      name: v1
      served: true
`,
	"v1beta1 validation": "apiVersion: apiextensions.k8s.io/v1beta1\r\nkind: CustomResourceDefinition\r\nspec:\r\n" +
		"  group: example.com\r\n  version: v1\r\n  validation:\r\n    openAPIV3Schema:\r\n      properties:\r\n" +
		"        scope: {type: string}\r\n  names:\r\n    kind: Baz\r\n    plural: bazzes\r\n  scope: Namespaced\r\n",
	"schema in flow style": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.com
  names: {kind: Qux, plural: quxes}
  scope: Namespaced
  versions:
  - {name: v1, served: true, schema: {openAPIV3Schema: {type: object}}}
  - name: v2
    served: true
    schema:
      openAPIV3Schema: {type: object}
`,
	"the key on a line of its own in flow style": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec: {group: example.com, names: {kind: Corge, plural: corges}, scope: Namespaced,
  versions: [{served: true, schema: {
    openAPIV3Schema:
      {type: object}}, name: v1}]}
`,
	"a quote and brackets in plain strings": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    note: it's a [draft
    other: 'it''s # not a comment'
spec:
  group: example.com
  names: {kind: Grault, plural: graults}
  scope: Cluster
  versions:
  - additionalPrinterColumns:
    - jsonPath: .status.conditions[?(@.type=="Ready")].status
      name: Ready
      type: string
    name: v1
    schema:
      openAPIV3Schema:
        type: object
    served: true
`,
	"the key inside a quoted string": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    note: "a
      openAPIV3Schema:
        b"
    tagged: !!str &anchor 'c
      openAPIV3Schema:
        d'
spec:
  group: example.com
  names: {kind: Quux, plural: quuxes}
  scope: Namespaced
  versions:
  - name: v1
    served: true
`,
}

// crdLayoutsCut lists the layouts whose schemas withoutSchemas cuts.
var crdLayoutsCut = map[string]bool{
	"controller-gen v1": true, "schema key first in its version": true, "v1beta1 validation": true,
	"a quote and brackets in plain strings": true,
}

// parseCRD reads what parsing a whole manifest reads, from the layouts
// controller-gen, Helm charts and hands write; it cuts the schemas where
// they are in block style, and leaves a key line inside a flow collection or
// a quoted string (a tagged one too) alone.
func TestParseCRDAsAWholeParse(t *testing.T) {
	for name, doc := range crdLayouts {
		t.Run(name, func(t *testing.T) {
			var want crdDoc
			if err := yaml.Unmarshal([]byte(doc), &want); err != nil || !want.complete() {
				t.Fatalf("the layout does not parse as a complete CRD: %v, %+v", err, want)
			}
			got, ok := parseCRD([]byte(doc))
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("parseCRD = %+v, %v; want %+v", got, ok, want)
			}
			cut, ok := withoutSchemas([]byte(doc))
			if ok != crdLayoutsCut[name] {
				t.Errorf("withoutSchemas cut: %v, want %v", ok, crdLayoutsCut[name])
			}
			if ok && (bytes.Contains(cut, []byte("properties:")) || bytes.Contains(cut, []byte("type: object"))) {
				t.Errorf("a schema is left after the cut:\n%s", cut)
			}
		})
	}
}

// A manifest file splits into documents as apimachinery's YAMLReader splits
// it, up to line ends: it writes "\n" for "\r\n" and after a last line
// without one.
func TestYAMLDocumentsSplitAsYAMLReader(t *testing.T) {
	for _, data := range []string{
		"",
		"a: 1\n",
		"---\na: 1\n---\n---\nb: 2",
		"a: 1\n--- # comment\nb: 2\n---   \r\nc: 3\r\n",
		"a: 1\n---b\nc: 3\n",
		"a: 1\n----\nb: 2\n",
		"# only a comment\n---\n\n",
		"a: |\n  ---\n  text\n",
		crdLayouts["controller-gen v1"],
	} {
		if got, want := splitWithYAMLDocuments(data), splitWithYAMLReader(data); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", data, got, want)
		}
	}
}

func FuzzYAMLDocumentsSplitAsYAMLReader(f *testing.F) {
	f.Add("a: 1\n--- # c\nb: 2\n---x\n")
	f.Add(crdLayouts["v1beta1 validation"])
	f.Fuzz(func(t *testing.T, data string) {
		if got, want := splitWithYAMLDocuments(data), splitWithYAMLReader(data); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", data, got, want)
		}
	})
}

func splitWithYAMLDocuments(data string) []string {
	var docs []string
	for doc := range yamlDocuments([]byte(data)) {
		docs = append(docs, lineEndsCut(doc))
	}
	return docs
}

// lineEndsCut returns doc without its carriage returns and its last line
// ends.
func lineEndsCut(doc []byte) string {
	return string(bytes.TrimRight(bytes.ReplaceAll(doc, []byte("\r"), nil), "\n"))
}

func splitWithYAMLReader(data string) []string {
	var docs []string
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(data)))
	for {
		doc, err := r.Read()
		if err != nil {
			return docs
		}
		docs = append(docs, lineEndsCut(doc))
	}
}

// Whatever the document, parseCRD reads from it what parsing it whole reads;
// it may also read a CRD whose schema alone does not parse (the cut takes
// the schema out unread).
func FuzzParseCRDAsAWholeParse(f *testing.F) {
	for _, doc := range crdLayouts {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var want crdDoc
		if yaml.Unmarshal([]byte(doc), &want) != nil {
			return
		}
		got, ok := parseCRD([]byte(doc))
		if ok != want.complete() || ok && !reflect.DeepEqual(got, want) {
			t.Errorf("parseCRD = %+v, %v; a whole parse gives %+v, %v", got, ok, want, want.complete())
		}
	})
}

// BenchmarkAddCRDs reads a manifest file of ten CRDs with schemas of about
// 0.9 MB each, the size of the largest published ones (prometheus-operator's
// Prometheus): parse=cut as addCRDs reads them, parse=whole parsing each
// document whole, as it did before it cut the schemas out.
func BenchmarkAddCRDs(b *testing.B) {
	var file bytes.Buffer
	for k := range 10 {
		fmt.Fprintf(&file, "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: kind%ds.example.com\nspec:\n", k)
		fmt.Fprintf(&file, "  group: example.com\n  names:\n    kind: Kind%d\n    plural: kind%ds\n  scope: Namespaced\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n", k, k)
		writeSchema(&file, 8, 4)
		file.WriteString("    served: true\n    storage: true\n")
	}
	data := file.Bytes()
	b.Run("parse=cut", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			crds := map[crdKey]*crdNames{}
			addCRDs(crds, data, "crds.yaml")
			if len(crds) != 10 {
				b.Fatalf("%d CRDs", len(crds))
			}
		}
	})
	b.Run("parse=whole", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			n := 0
			for doc := range yamlDocuments(data) {
				var crd crdDoc
				if yaml.Unmarshal(doc, &crd) == nil && crd.complete() {
					n++
				}
			}
			if n != 10 {
				b.Fatalf("%d CRDs", n)
			}
		}
	})
}

// writeSchema writes an object schema as controller-gen lays it out, at
// indent spaces, with fields of its own and nested objects depth deep.
func writeSchema(w *bytes.Buffer, indent, depth int) {
	pad := strings.Repeat(" ", indent)
	fmt.Fprintf(w, "%sdescription: |-\n%s  An object of the API, described at length as Go comments describe\n%s  fields: what it holds, its default, and when it changes.\n%sproperties:\n", pad, pad, pad, pad)
	for f := range 12 {
		fmt.Fprintf(w, "%s  field%d:\n", pad, f)
		if depth > 0 && f < 4 {
			writeSchema(w, indent+4, depth-1)
			continue
		}
		fmt.Fprintf(w, "%s    description: The field's meaning, its unit and its default.\n%s    format: int32\n%s    type: integer\n", pad, pad, pad)
	}
	fmt.Fprintf(w, "%stype: object\n", pad)
}
