// Command benchratio reads `go test -bench` output on stdin and prints, for every
// benchmark that ran as both `.../impl=ours` and `.../impl=client-go`, the median
// of each metric for both and the ratio in our favour (>1 means we are better:
// client-go/ours for costs such as ns/op, B/op, allocs/op and B/obj; ours/client-go
// for rates, units ending in "/s").
//
// A variant of ours, `.../impl=ours,<variant>` (ours run with other options),
// gets its own row against the same client-go samples, labelled
// "<benchmark> [<variant>]".
//
// Usage: go test -run '^$' -bench . -benchmem -count 5 ./bench | go run ./hack/benchratio
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

const (
	ours     = "ours"
	clientGo = "client-go"
)

// benchLine matches "BenchmarkName-8   	 1000	 123 ns/op	 45 B/op ...".
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

type key struct{ bench, unit string }

func main() {
	samples := map[key]map[string][]float64{} // -> impl -> values
	impls := map[key][]string{}               // impls of ours seen, in order
	var order []key
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(os.Stderr, line) // keep the raw output visible
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, impl, ok := splitImpl(m[1])
		if !ok {
			continue
		}
		fields := strings.Fields(m[2])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			k := key{name, fields[i+1]}
			if samples[k] == nil {
				samples[k] = map[string][]float64{}
				order = append(order, k)
			}
			if _, seen := samples[k][impl]; !seen && (impl == ours || strings.HasPrefix(impl, ours+",")) {
				impls[k] = append(impls[k], impl)
			}
			samples[k][impl] = append(samples[k][impl], v)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "benchmark\tunit\tours\tclient-go\tours better by\t")
	paired := 0
	for _, k := range order {
		for _, impl := range impls[k] {
			if row(w, k, impl, samples[k][impl], samples[k][clientGo]) {
				paired++
			}
		}
	}
	w.Flush()
	if paired == 0 {
		fmt.Fprintln(os.Stderr, "benchratio: no benchmark ran as both impl=ours and impl=client-go")
		os.Exit(1)
	}
}

// row prints the medians of o (impl, ours or a variant of it) and c
// (client-go) for k and their ratio, if both ran.
func row(w io.Writer, k key, impl string, o, c []float64) bool {
	if len(o) == 0 || len(c) == 0 {
		return false
	}
	name := k.bench
	if variant, ok := strings.CutPrefix(impl, ours+","); ok {
		name += " [" + variant + "]"
	}
	mo, mc := median(o), median(c)
	// better/worse: ours' cost over client-go's, inverted for rates
	// (units ending in "/s", where higher is better).
	better, worse := mc, mo
	if strings.HasSuffix(k.unit, "/s") {
		better, worse = mo, mc
	}
	var ratio string
	switch {
	case worse > 0:
		ratio = fmt.Sprintf("%.2fx", better/worse)
	case better == 0:
		ratio = "equal"
	default:
		ratio = "inf"
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t\n", name, k.unit, num(mo), num(mc), ratio)
	return true
}

// splitImpl splits "BenchmarkX/case/impl=ours/more" into ("BenchmarkX/case/more", "ours").
func splitImpl(name string) (string, string, bool) {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if impl, ok := strings.CutPrefix(p, "impl="); ok {
			return strings.Join(slices.Delete(parts, i, i+1), "/"), impl, true
		}
	}
	return "", "", false
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func num(f float64) string {
	if f >= 100 || f == float64(int64(f)) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}
