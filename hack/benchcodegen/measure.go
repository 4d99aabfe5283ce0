package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// step is one command of a contender. A contender that runs several commands
// in sequence (upstream: lister-gen, then informer-gen) has one step each.
type step struct {
	Contender string // "ours" or "upstream"
	Name      string // "" for a single-command contender, else e.g. "lister-gen"
	Argv      []string
}

// sample is what one execution of one step cost.
type sample struct {
	Wall  time.Duration
	CPU   time.Duration // user+sys of the command and its waited-for descendants
	RSSMB float64       // peak resident set of the largest process in the tree
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// parseSteps splits "@ours cmd args... @upstream:lister-gen cmd args..." into
// steps. A token starting with "@" names the contender (and after a colon the
// step) of the command that follows it.
func parseSteps(args []string) ([]step, error) {
	var steps []step
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "@"); ok {
			contender, stepName, _ := strings.Cut(name, ":")
			if contender == "" {
				return nil, fmt.Errorf("empty contender name in %q", a)
			}
			steps = append(steps, step{Contender: contender, Name: stepName})
			continue
		}
		if len(steps) == 0 {
			return nil, fmt.Errorf("command %q is not preceded by an @contender token", a)
		}
		steps[len(steps)-1].Argv = append(steps[len(steps)-1].Argv, a)
	}
	if len(steps) == 0 {
		return nil, errors.New("no commands: want -- @contender cmd args ...")
	}
	for _, s := range steps {
		if len(s.Argv) == 0 {
			return nil, fmt.Errorf("@%s has no command", s.label())
		}
	}
	return steps, nil
}

func (s step) label() string {
	if s.Name == "" {
		return s.Contender
	}
	return s.Contender + ":" + s.Name
}

// contenders returns the contender names in order of first appearance.
func contenders(steps []step) []string {
	var names []string
	for _, s := range steps {
		if !slices.Contains(names, s.Contender) {
			names = append(names, s.Contender)
		}
	}
	return names
}

func measureCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("measure", flag.ContinueOnError)
	caseName := fset.String("case", "", "case name recorded in the results (required)")
	results := fset.String("results", "", "results file to append rows to (required)")
	runs := fset.Int("runs", 5, "timed runs per contender; the median is recorded")
	dir := fset.String("dir", ".", "working directory of the commands")
	var clean stringList
	fset.Var(&clean, "clean", "directory removed before every run, untimed (repeatable); kube_codegen.sh also deletes old output first")
	warmup := fset.Bool("warmup", true, "run every command once, untimed, before the timed runs")
	prefix := fset.String("prefix", "", "prefix of the recorded metric names (compile_ for compile_wall_s, ...)")
	coldCache := fset.Bool("cold-gocache", false, "give every timed run of a contender a new, empty GOCACHE (untimed setup and removal): what a first run on a fresh machine costs")
	var stable stringList
	fset.Var(&stable, "stable", "contender=DIR: check that the contender writes byte-identical output to DIR on every run (repeatable)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if *caseName == "" || *results == "" || *runs < 1 {
		return errors.New("measure: -case, -results and -runs >= 1 are required")
	}
	steps, err := parseSteps(fset.Args())
	if err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	names := contenders(steps)
	stableDirs := map[string][]string{} // contender -> output dirs
	for _, s := range stable {
		c, dir, ok := strings.Cut(s, "=")
		if !ok || !slices.Contains(names, c) || dir == "" {
			return fmt.Errorf("measure: -stable %q: want contender=DIR with a contender of the command line", s)
		}
		stableDirs[c] = append(stableDirs[c], dir)
	}
	firstDigest := map[string]string{} // contender -> digest of its output after the warm-up
	deterministic := map[string]bool{} // contender -> every run matched firstDigest

	// One untimed warm-up run fills the OS page cache and Go's build and
	// module caches (the generators run `go list`), and is where a broken
	// generator is reported, with its output.
	if *warmup {
		fmt.Fprintf(stdout, "%s: warm-up run\n", *caseName)
		if err := cleanDirs(clean); err != nil {
			return err
		}
		for _, s := range steps {
			if _, err := runStep(ctx, *dir, nil, s); err != nil {
				return err
			}
		}
		for c, dirs := range stableDirs {
			d, err := digestTrees(dirs)
			if err != nil {
				return err
			}
			firstDigest[c], deterministic[c] = d, true
		}
	} else if len(stableDirs) > 0 {
		return errors.New("measure: -stable needs the warm-up run")
	}

	// samples[step index] holds one sample per timed run.
	samples := make([][]sample, len(steps))
	for i := range *runs {
		if err := cleanDirs(clean); err != nil {
			return err
		}
		// Alternate which contender goes first, so neither profits from
		// the other warming a cache on a shared, noisy machine.
		order := slices.Clone(names)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, c := range order {
			var env []string
			var cache string
			if *coldCache {
				if cache, err = os.MkdirTemp("", "benchcodegen-gocache-"); err != nil {
					return fmt.Errorf("cold GOCACHE: %w", err)
				}
				env = []string{"GOCACHE=" + cache}
			}
			var total sample
			for j, s := range steps {
				if s.Contender != c {
					continue
				}
				smp, err := runStep(ctx, *dir, env, s)
				if err != nil {
					os.RemoveAll(cache)
					return err
				}
				samples[j] = append(samples[j], smp)
				total = total.then(smp)
			}
			if cache != "" {
				// The go command makes cache entries read-only; RemoveAll
				// copes since it owns the directories.
				if err := os.RemoveAll(cache); err != nil {
					return fmt.Errorf("remove cold GOCACHE: %w", err)
				}
			}
			fmt.Fprintf(stdout, "%s: %srun %d/%d %-9s wall %6.3fs  cpu %6.3fs  peak RSS %6.1f MB\n",
				*caseName, *prefix, i+1, *runs, c, total.Wall.Seconds(), total.CPU.Seconds(), total.RSSMB)
			if dirs, ok := stableDirs[c]; ok {
				d, err := digestTrees(dirs)
				if err != nil {
					return err
				}
				if d != firstDigest[c] {
					fmt.Fprintf(stdout, "%s: run %d/%d %s wrote output that differs from its first run\n", *caseName, i+1, *runs, c)
					deterministic[c] = false
				}
			}
		}
	}
	rows := summarize(*caseName, steps, samples)
	for i := range rows {
		rows[i].Metric = *prefix + rows[i].Metric
	}
	for _, c := range names {
		if ok, checked := deterministic[c]; checked {
			rows = append(rows, row{*caseName, c, "deterministic", boolValue(ok)})
		}
	}
	return appendRows(*results, rows)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// digestTrees hashes the relative paths and contents of every file under
// dirs, so two runs that wrote the same tree have the same digest.
func digestTrees(dirs []string) (string, error) {
	h := sha256.New()
	for _, root := range dirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
			h.Write(data)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("digest output %s: %w", root, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// then is the cost of running s and then t: times add up, the peak is the
// larger one, since the commands do not overlap.
func (s sample) then(t sample) sample {
	return sample{Wall: s.Wall + t.Wall, CPU: s.CPU + t.CPU, RSSMB: max(s.RSSMB, t.RSSMB)}
}

// summarize turns per-step samples into result rows: per contender the
// median over runs of each run's total, and per step of a multi-step
// contender the median of that step alone.
func summarize(caseName string, steps []step, samples [][]sample) []row {
	var rows []row
	add := func(contender string, runs []sample) {
		var wall, cpu, rss []float64
		for _, s := range runs {
			wall = append(wall, s.Wall.Seconds())
			cpu = append(cpu, s.CPU.Seconds())
			rss = append(rss, s.RSSMB)
		}
		rows = append(rows,
			row{caseName, contender, "wall_s", median(wall)},
			row{caseName, contender, "wall_min_s", slices.Min(wall)},
			row{caseName, contender, "cpu_s", median(cpu)},
			row{caseName, contender, "rss_mb", median(rss)})
	}
	for _, c := range contenders(steps) {
		var idx []int
		for j, s := range steps {
			if s.Contender == c {
				idx = append(idx, j)
			}
		}
		totals := make([]sample, len(samples[idx[0]]))
		for _, j := range idx {
			for r, s := range samples[j] {
				totals[r] = totals[r].then(s)
			}
		}
		add(c, totals)
		if len(idx) > 1 {
			for _, j := range idx {
				add(steps[j].label(), samples[j])
			}
		}
	}
	return rows
}

// median of xs; the mean of the middle two for an even count. xs must not be
// empty.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func cleanDirs(dirs []string) error {
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("clean %s: %w", d, err)
		}
	}
	return nil
}

// runStep runs one command to completion with env added to the environment.
// Its output is kept in memory and shown only when it fails, so the table is
// not drowned in generator logs.
func runStep(ctx context.Context, dir string, env []string, s step) (sample, error) {
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("@%s failed: %w\n$ %s\n%s", s.label(), err, strings.Join(s.Argv, " "), out.Bytes())
	}
	cpu, rss := usage(cmd.ProcessState)
	return sample{Wall: wall, CPU: cpu, RSSMB: rss}, nil
}
