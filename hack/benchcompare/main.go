// Command benchcompare reads the `go test -bench` output of two builds of
// the same benchmarks, run alternately (hack/bench-compare.sh), and prints
// for every benchmark and metric the median of each and their ratio
// after/before (<1 means the after build costs less; for rates, units ending
// in "/s", >1 means it is faster), and the ratio of their minimums: on a
// busy machine a run's time is its own cost plus whatever waited for the
// CPU, so the fastest run of each is the closest to the cost alone. The
// spread (min..max) of each side is printed too, so a ratio can be read
// against the noise.
//
// Usage: go run ./hack/benchcompare before.txt after.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// benchLine matches "BenchmarkName-8   	 1000	 123 ns/op	 45 B/op ...".
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

type key struct{ bench, unit string }

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: benchcompare before.txt after.txt")
		os.Exit(2)
	}
	var order []key
	before, err := read(os.Args[1], &order)
	if err == nil {
		var after map[key][]float64
		if after, err = read(os.Args[2], &order); err == nil {
			print(order, before, after)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "benchcompare:", err)
	os.Exit(1)
}

// read returns the samples of every benchmark and metric in file, adding
// the keys not in order yet to it.
func read(file string, order *[]key) (map[key][]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples := map[key][]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[2])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			k := key{m[1], fields[i+1]}
			if !slices.Contains(*order, k) {
				*order = append(*order, k)
			}
			samples[k] = append(samples[k], v)
		}
	}
	return samples, sc.Err()
}

func print(order []key, before, after map[key][]float64) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "benchmark\tunit\tbefore\t(min..max)\tafter\t(min..max)\tafter/before\tmin/min\t")
	for _, k := range order {
		b, a := before[k], after[k]
		if len(b) == 0 || len(a) == 0 {
			continue
		}
		mb, ma := median(b), median(a)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s..%s\t%s\t%s..%s\t%s\t%s\t\n", k.bench, k.unit,
			num(mb), num(slices.Min(b)), num(slices.Max(b)), num(ma), num(slices.Min(a)), num(slices.Max(a)),
			ratio(ma, mb), ratio(slices.Min(a), slices.Min(b)))
	}
	w.Flush()
}

// ratio is a/b with three decimals, "-" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", a/b)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
