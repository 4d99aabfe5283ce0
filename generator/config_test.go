package generator

import (
	"bytes"
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
