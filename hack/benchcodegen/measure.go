package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	caseName := fs.String("case", "", "case name recorded in the results (required)")
	results := fs.String("results", "", "results file to append rows to (required)")
	runs := fs.Int("runs", 5, "timed runs per contender; the median is recorded")
	dir := fs.String("dir", ".", "working directory of the commands")
	var clean stringList
	fs.Var(&clean, "clean", "directory removed before every run, untimed (repeatable); kube_codegen.sh also deletes old output first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *caseName == "" || *results == "" || *runs < 1 {
		return errors.New("measure: -case, -results and -runs >= 1 are required")
	}
	steps, err := parseSteps(fs.Args())
	if err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	names := contenders(steps)

	// One untimed warm-up run fills the OS page cache and Go's build and
	// module caches (the generators run `go list`), and is where a broken
	// generator is reported, with its output.
	fmt.Fprintf(stdout, "%s: warm-up run\n", *caseName)
	if err := cleanDirs(clean); err != nil {
		return err
	}
	for _, s := range steps {
		if _, err := runStep(ctx, *dir, s); err != nil {
			return err
		}
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
			var total sample
			for j, s := range steps {
				if s.Contender != c {
					continue
				}
				smp, err := runStep(ctx, *dir, s)
				if err != nil {
					return err
				}
				samples[j] = append(samples[j], smp)
				total = total.then(smp)
			}
			fmt.Fprintf(stdout, "%s: run %d/%d %-9s wall %6.3fs  cpu %6.3fs  peak RSS %6.1f MB\n",
				*caseName, i+1, *runs, c, total.Wall.Seconds(), total.CPU.Seconds(), total.RSSMB)
		}
	}
	return appendRows(*results, summarize(*caseName, steps, samples))
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

// runStep runs one command to completion. Its output is kept in memory and
// shown only when it fails, so the table is not drowned in generator logs.
func runStep(ctx context.Context, dir string, s step) (sample, error) {
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = dir
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
