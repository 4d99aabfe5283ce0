package apiversion

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// TestNextModFollowsGoMod: hack/next.mod, the go.mod of hack/test.sh's leg
// on the next Kubernetes minor, is the root go.mod with the k8s.io libraries
// raised: it requires every module go.mod does, at the same version or a
// newer one, and k8s.io/api, apimachinery and client-go at one newer minor,
// all three alike. A dependency raised in go.mod and not in next.mod would
// leave the second leg testing an older graph: hack/update-next.sh rewrites it.
func TestNextModFollowsGoMod(t *testing.T) {
	root := filepath.Join("..", "..")
	parse := func(name string) *modfile.File {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	cur, next := parse("go.mod"), parse(filepath.Join("hack", "next.mod"))
	if cur.Module.Mod.Path != repoModule || next.Module.Mod.Path != repoModule {
		t.Fatalf("modules %s and %s, want %s", cur.Module.Mod.Path, next.Module.Mod.Path, repoModule)
	}
	if next.Toolchain == nil {
		t.Fatal("hack/next.mod has no toolchain line: hack/test.sh runs the leg with it")
	}
	nextVersions := map[string]string{}
	for _, r := range next.Require {
		nextVersions[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range cur.Require {
		if r.Indirect {
			continue // tidy may drop an indirect one the newer graph no longer needs
		}
		v, ok := nextVersions[r.Mod.Path]
		if !ok || semver.Compare(v, r.Mod.Version) < 0 {
			t.Errorf("hack/next.mod requires %s %q, go.mod %s: run hack/update-next.sh", r.Mod.Path, v, r.Mod.Version)
		}
	}
	k8s := nextVersions["k8s.io/client-go"]
	for _, m := range []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"} {
		if nextVersions[m] != k8s {
			t.Errorf("hack/next.mod requires %s %s, client-go %s: they are released together", m, nextVersions[m], k8s)
		}
		if v := Required(m); semver.Compare(semver.MajorMinor(nextVersions[m]), semver.MajorMinor(v)) <= 0 {
			t.Errorf("hack/next.mod requires %s %s, not a newer minor than go.mod's %s", m, nextVersions[m], v)
		}
	}
}
