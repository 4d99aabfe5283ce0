package generator

import (
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"testing"
)

// TestScanRegistrations: the types a package registers are read from
// upstream's addKnownTypes, an init() into client-go's scheme, kubebuilder's
// SchemeBuilder.Register; other Register calls do not count.
func TestScanRegistrations(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
		versions   []string
		kinds      map[string]string
	}{
		{"upstream", `func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Foo{}, &FooList{})
	return nil
}`, []string{"Foo", "FooList"}, nil, nil},
		{"init into client-go's scheme", `func init() {
	scheme.Scheme.AddKnownTypes(schema.GroupVersion{Group: apis.Group, Version: "v1beta1"}, &NodePool{}, new(NodePoolList))
}`, []string{"NodePool", "NodePoolList"}, []string{"v1beta1"}, nil},
		{"kubebuilder", `func init() { SchemeBuilder.Register(&Widget{}, &WidgetList{}) }`, []string{"Widget", "WidgetList"}, nil, nil},
		{"a webhook's Register", `func init() { mgr.Register(&Widget{}) }`, nil, nil, nil},
		{"a kind named otherwise", `func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypeWithName(SchemeGroupVersion.WithKind("postgresql"), &Postgresql{})
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: GroupName, Version: "v1", Kind: "postgresqlList"}, &PostgresqlList{})
	scheme.AddKnownTypeWithName(SchemeGroupVersion.WithKind("Team"), &Team{})
	scheme.AddKnownTypeWithName(SchemeGroupVersion.WithKind(teamListKind), &TeamList{})
	return nil
}`, []string{"Postgresql", "PostgresqlList", "Team", "TeamList"}, nil,
			map[string]string{"Postgresql": "postgresql", "PostgresqlList": "postgresqlList"}},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package v1\n"+c.body, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := scanRegistrations(f)
		if got := slices.Sorted(maps.Keys(r.types)); !slices.Equal(got, c.want) || !slices.Equal(r.versions, c.versions) {
			t.Errorf("%s: registered %v versions %v, want %v %v", c.name, got, r.versions, c.want, c.versions)
		}
		if !maps.Equal(r.kinds, c.kinds) {
			t.Errorf("%s: kinds %v, want %v", c.name, r.kinds, c.kinds)
		}
		if r.visible() != (len(c.want) > 0) {
			t.Errorf("%s: visible = %v", c.name, r.visible())
		}
	}
}
