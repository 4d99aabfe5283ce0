package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBisectLadder checks the search of -memlimit: the smallest passing
// step of a monotone ladder, or none, in at most ceil(log2(n+1)) trials.
func TestBisectLadder(t *testing.T) {
	for n := 0; n <= 14; n++ {
		for first := 0; first <= n; first++ { // first == n: none passes
			tried := 0
			got, err := bisectLadder(n, func(i int) (bool, error) {
				if i < 0 || i >= n {
					t.Fatalf("n %d: tried step %d", n, i)
				}
				tried++
				return i >= first, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := first
			if first == n {
				want = -1
			}
			if got != want {
				t.Fatalf("n %d, first passing %d: got %d", n, first, got)
			}
			if limit := bitsLen(n + 1); tried > limit {
				t.Fatalf("n %d, first passing %d: %d trials, want at most %d", n, first, tried, limit)
			}
		}
	}
}

func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

// TestMemCgroupFiles checks what newMemCgroup writes and stats reads, on a
// directory laid out as each cgroup version's files are (plain files here:
// the kernel's are the same names and formats).
func TestMemCgroupFiles(t *testing.T) {
	t.Run("v1", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, "memory.limit_in_bytes", "9223372036854771712\n")
		c, err := newMemCgroup(root, "trial", 128<<20)
		if err != nil {
			t.Fatal(err)
		}
		if c.v2 {
			t.Fatal("a v1 hierarchy taken for v2")
		}
		if got := read(t, c.dir, "memory.limit_in_bytes"); got != "134217728" {
			t.Fatalf("memory.limit_in_bytes %q", got)
		}
		if _, err := os.Stat(filepath.Join(c.dir, "memory.memsw.limit_in_bytes")); err == nil {
			t.Fatal("memory.memsw.limit_in_bytes written where swap accounting is off")
		}
		write(t, c.dir, "memory.max_usage_in_bytes", "1000\n")
		write(t, c.dir, "memory.failcnt", "7\n")
		write(t, c.dir, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
		if peak, fail, kills := c.stats(); peak != 1000 || fail != 7 || kills != 1 {
			t.Fatalf("stats %d %d %d", peak, fail, kills)
		}
		if c.procs() != filepath.Join(root, "trial", "cgroup.procs") {
			t.Fatalf("procs %s", c.procs())
		}
	})
	t.Run("v2", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, "cgroup.subtree_control", "cpu memory pids\n")
		c, err := newMemCgroup(root, "trial", 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		if !c.v2 {
			t.Fatal("a v2 tree taken for v1")
		}
		if got := read(t, c.dir, "memory.max"); got != "67108864" {
			t.Fatalf("memory.max %q", got)
		}
		if got := read(t, c.dir, "memory.swap.max"); got != "0" {
			t.Fatalf("memory.swap.max %q", got)
		}
		write(t, c.dir, "memory.peak", "2000\n")
		write(t, c.dir, "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
		if peak, fail, kills := c.stats(); peak != 2000 || fail != 3 || kills != 1 {
			t.Fatalf("stats %d %d %d", peak, fail, kills)
		}
	})
	t.Run("neither", func(t *testing.T) {
		if _, err := newMemCgroup(t.TempDir(), "trial", 1<<20); err == nil || !strings.Contains(err.Error(), "neither") {
			t.Fatalf("no cgroup files: %v", err)
		}
	})
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMemLimitFor checks -memlimit-for: a ladder per named contender, the
// others bisecting -memlimit's; malformed values are flag errors.
func TestMemLimitFor(t *testing.T) {
	defer clear(memLimitFor)
	f := flag.Lookup("memlimit-for")
	if f == nil {
		t.Fatal("no -memlimit-for flag")
	}
	if err := f.Value.Set("ours=448,512,640; client-go-typed=1536,2048 ;"); err != nil {
		t.Fatal(err)
	}
	mc := memLimitConfig{Ladder: []int{96, 128}}
	for name, want := range map[string][]int{"ours": {448, 512, 640}, "client-go-typed": {1536, 2048}, "ours-projection": {96, 128}} {
		if got := mc.ladder(name); !slices.Equal(got, want) {
			t.Errorf("ladder of %s: %v, want %v", name, got, want)
		}
	}
	if err := f.Value.Set("ours-projection=64"); err != nil {
		t.Fatal(err)
	}
	if got := mc.ladder("ours"); !slices.Equal(got, mc.Ladder) {
		t.Errorf("a second -memlimit-for kept ours' ladder of the first: %v", got)
	}
	for _, bad := range []string{"ours", "ours=", "ours=512,448", "ours=a"} {
		if err := f.Value.Set(bad); err == nil {
			t.Errorf("-memlimit-for %q: no error", bad)
		}
	}
}
