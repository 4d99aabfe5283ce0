package generator

import (
	"bytes"
	"errors"
	"io"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

func TestFillYear(t *testing.T) {
	header := []byte("/*\nCopyright YEAR The Sample Authors.\nYEARS is not a placeholder.\n*/\n")
	if got, want := string(fillYear(header, "2024")), "/*\nCopyright 2024 The Sample Authors.\nYEARS is not a placeholder.\n*/\n"; got != want {
		t.Errorf("fillYear(2024) = %q, want %q", got, want)
	}
	before := time.Now().UTC().Year()
	got := string(fillYear(header, ""))
	after := time.Now().UTC().Year()
	if got != "/*\nCopyright "+strconv.Itoa(before)+" The Sample Authors.\nYEARS is not a placeholder.\n*/\n" &&
		got != "/*\nCopyright "+strconv.Itoa(after)+" The Sample Authors.\nYEARS is not a placeholder.\n*/\n" {
		t.Errorf("fillYear(\"\") = %q, want the current year", got)
	}
}

func TestModuleVersion(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"checkout", debug.BuildInfo{Main: debug.Module{Path: modulePathSelf, Version: "(devel)"}}, "(devel)"},
		{"go install @version", debug.BuildInfo{Main: debug.Module{Path: modulePathSelf, Version: "v0.3.0"}}, "v0.3.0"},
		{"tool dependency", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/controller"},
			Deps: []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.37.2"}, {Path: modulePathSelf, Version: "v0.4.1"}},
		}, "v0.4.1"},
		{"replaced dependency", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/controller"},
			Deps: []*debug.Module{{Path: modulePathSelf, Version: "v0.4.1", Replace: &debug.Module{Path: "../informer-gen"}}},
		}, "(devel)"},
		{"not in the build", debug.BuildInfo{Main: debug.Module{Path: "example.com/other", Version: "v1.0.0"}}, "(devel)"},
	}
	for _, tt := range tests {
		if got := moduleVersion(&tt.bi); got != tt.want {
			t.Errorf("%s: moduleVersion = %q, want %q", tt.name, got, tt.want)
		}
	}
	if v := ModuleVersion(); v == "" {
		t.Error("ModuleVersion() is empty")
	}
}

func TestParseArgsVersion(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := ParseArgs([]string{"--version"}, &stderr)
	if err != nil || !cfg.PrintVersion || stderr.Len() != 0 {
		t.Errorf("ParseArgs(--version) = %+v, %v, stderr %q", cfg, err, stderr.String())
	}
}

func TestParseArgsJSONDecoders(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    string
		wantErr bool
	}{
		{[]string{"--output-dir", "out", "./apis/..."}, "", false},
		{[]string{"--json-decoders", "all", "--output-dir", "out", "./apis/..."}, "all", false},
		{[]string{"--json-decoders=none", "--output-dir", "out", "./apis/..."}, "none", false},
		{[]string{"--json-decoders", "some", "--output-dir", "out", "./apis/..."}, "", true},
	} {
		var stderr bytes.Buffer
		cfg, err := ParseArgs(c.args, &stderr)
		if (err != nil) != c.wantErr || err == nil && cfg.JSONDecoders != c.want {
			t.Errorf("ParseArgs(%q) = JSONDecoders %q, error %v; want %q, error %v", c.args, cfg.JSONDecoders, err, c.want, c.wantErr)
		}
	}
}

// TestJSONDecodersModes: auto writes decoders for the kinds of groups
// kube-apiserver does not serve (custom resources, protobuf methods or not),
// all for every kind, none for no kind.
func TestJSONDecodersModes(t *testing.T) {
	for _, c := range []struct {
		mode            string
		custom, builtIn bool
	}{{"", true, false}, {"auto", true, false}, {"all", true, true}, {"none", false, false}} {
		if got := wantsJSONDecoder(c.mode, "argoproj.io"); got != c.custom {
			t.Errorf("mode %q, a custom resource: %v, want %v", c.mode, got, c.custom)
		}
		if got := wantsJSONDecoder(c.mode, "apps"); got != c.builtIn {
			t.Errorf("mode %q, a built-in group: %v, want %v", c.mode, got, c.builtIn)
		}
	}
}

func TestParseProjectionFlag(t *testing.T) {
	pf, err := ParseProjectionFlag("k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName; .status.phase;")
	if err != nil {
		t.Fatal(err)
	}
	if pf.Package != "k8s.io/api/core/v1" || pf.Kind != "Pod" || pf.Name != "PodSummary" ||
		len(pf.Paths) != 2 || pf.Paths[0] != ".spec.nodeName" || pf.Paths[1] != ".status.phase" {
		t.Errorf("ParseProjectionFlag = %+v", pf)
	}
	// Nothing after '=': a projection of the metadata only.
	if pf, err := ParseProjectionFlag("k8s.io/api/core/v1.ConfigMap:ConfigMapMeta= "); err != nil || pf.Kind != "ConfigMap" || pf.Name != "ConfigMapMeta" || len(pf.Paths) != 0 {
		t.Errorf("ParseProjectionFlag(metadata only) = %+v, %v", pf, err)
	}
	for _, bad := range []string{
		"k8s.io/api/core/v1.Pod:PodSummary",            // no fields
		"k8s.io/api/core/v1.Pod=.spec.nodeName",        // no name
		"k8s.io/api/core/v1:PodSummary=.spec.nodeName", // no kind
		"k8s.io/api/core/v1.:PodSummary=.spec",         // empty kind
		"./apis/v1.Foo:FooSummary=.spec",               // relative
		"k8s.io/api/core/v1.Pod:podSummary=.spec",      // unexported name
		"k8s.io/api/core/v1.Pod:PodSummary= ; ",        // only separators
	} {
		if _, err := ParseProjectionFlag(bad); err == nil {
			t.Errorf("ParseProjectionFlag(%q) succeeded, want an error", bad)
		}
	}
}

func TestGroupGoNameFlag(t *testing.T) {
	cfg, err := ParseArgs([]string{"--output-dir", "out", "--group-go-name", "monitoring.coreos.com=CoreOSMonitoring", "./apis/..."}, io.Discard)
	if err != nil || cfg.GroupGoNames["monitoring.coreos.com"] != "CoreOSMonitoring" {
		t.Fatalf("ParseArgs = %v, %v", cfg.GroupGoNames, err)
	}
	for _, bad := range []string{"monitoring.coreos.com", "=Name", "g.io=lower", "g.io=Two Words"} {
		if _, err := ParseArgs([]string{"--output-dir", "out", "--group-go-name", bad, "./apis/..."}, io.Discard); !errors.Is(err, ErrUsage) {
			t.Errorf("--group-go-name %q: err = %v, want a usage error", bad, err)
		}
	}
	if _, err := ParseArgs([]string{"--output-dir", "out", "--group-go-name", "g.io=A", "--group-go-name", "g.io=B", "./apis/..."}, io.Discard); !errors.Is(err, ErrUsage) {
		t.Errorf("a group given two Go names: err = %v, want a usage error", err)
	}
}
