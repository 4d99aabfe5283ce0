package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// metricInfo says how a metric is printed and compared.
type metricInfo struct {
	Metric string
	Title  string
	Share  bool // ratio is ours/upstream as a percentage (sizes), else upstream/ours (costs)
	Bool   bool // 1 = yes, 0 = no; no ratio
	Plain  bool // a count printed without ratio
}

var metrics = []metricInfo{
	{Metric: "inputs", Title: "input packages", Plain: true},
	{Metric: "wall_s", Title: "wall time (s, median)"},
	{Metric: "wall_min_s", Title: "wall time (s, fastest run)"},
	{Metric: "cpu_s", Title: "cpu time (s, median)"},
	{Metric: "rss_mb", Title: "peak RSS (MB, median)"},
	{Metric: "go_files", Title: "generated .go files", Share: true},
	{Metric: "go_lines", Title: "generated lines (non-blank)", Share: true},
	{Metric: "go_lines_noheader", Title: "  same without license headers", Share: true},
	{Metric: "code_lines", Title: "generated lines (code only)", Share: true},
	{Metric: "deterministic", Title: "same output every run", Bool: true},
	{Metric: "compiles", Title: "output compiles", Bool: true},
	{Metric: "compile_wall_s", Title: "compiling the output (s, wall)"},
	{Metric: "compile_cpu_s", Title: "compiling the output (s, cpu)"},
	{Metric: "compile_rss_mb", Title: "compiling the output (MB, peak RSS)"},
	{Metric: "compile_max_rss_mb", Title: "  largest single compile (MB)"},
	{Metric: "compile_packages", Title: "  packages compiled", Plain: true},
}

// target is the goal a figure is reported against (docs/performance.md, "Generator").
// Targets are reported, never asserted: the machines are shared and noisy.
type target struct {
	Min float64 // for costs: upstream/ours must be at least Min
	Max float64 // for shares: ours/upstream must be at most Max
}

var targets = map[[2]string]target{
	{"crd", "wall_s"}:    {Min: 5},
	{"crd", "rss_mb"}:    {Min: 3},
	{"kapi", "wall_s"}:   {Min: 4},
	{"kapi", "go_lines"}: {Max: 0.35},
	// An empty GOCACHE (a fresh CI job) must not undo the lead.
	{"crd-cold", "wall_s"}:  {Min: 2},
	{"crd-cold", "rss_mb"}:  {Min: 1},
	{"kapi-cold", "wall_s"}: {Min: 2},
	{"kapi-cold", "rss_mb"}: {Min: 1},
}

func reportCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("report: want exactly one results file")
	}
	rows, err := readRows(fs.Arg(0))
	if err != nil {
		return err
	}
	return report(w, rows)
}

// report prints, per case, ours against upstream with ratios and targets,
// then the share of each upstream command.
func report(w io.Writer, rows []row) error {
	var cases []string
	values := map[[3]string]float64{}
	for _, r := range rows {
		if !slices.Contains(cases, r.Case) {
			cases = append(cases, r.Case)
		}
		values[[3]string{r.Case, r.Contender, r.Metric}] = r.Value
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range cases {
		fmt.Fprintf(tw, "\n== %s\n", c)
		fmt.Fprintln(tw, "metric\tours\tupstream\tratio\ttarget\tmet")
		for _, m := range metrics {
			ours, okO := values[[3]string{c, "ours", m.Metric}]
			up, okU := values[[3]string{c, "upstream", m.Metric}]
			if !okO && !okU {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Title, m.format(ours, okO), m.format(up, okU), m.compare(c, ours, up, okO && okU))
		}
		var steps []string
		for _, r := range rows {
			if r.Case == c && strings.HasPrefix(r.Contender, "upstream:") && !slices.Contains(steps, r.Contender) {
				steps = append(steps, r.Contender)
			}
		}
		for _, s := range steps {
			fmt.Fprintf(tw, "  %s\twall %.3fs\tcpu %.3fs\tpeak RSS %.1f MB\n", s,
				values[[3]string{c, s, "wall_s"}], values[[3]string{c, s, "cpu_s"}], values[[3]string{c, s, "rss_mb"}])
		}
	}
	return tw.Flush()
}

func (m metricInfo) format(v float64, ok bool) string {
	switch {
	case !ok:
		return "-"
	case m.Bool && v == 1:
		return "yes"
	case m.Bool:
		return "NO"
	case strings.HasSuffix(m.Metric, "_s"):
		return fmt.Sprintf("%.3f", v)
	case strings.HasSuffix(m.Metric, "rss_mb"):
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// compare returns the ratio, target and met columns.
func (m metricInfo) compare(caseName string, ours, up float64, both bool) string {
	if m.Bool || m.Plain || !both || ours <= 0 || up <= 0 {
		return "\t\t"
	}
	t, hasTarget := targets[[2]string{caseName, m.Metric}]
	if m.Share {
		share := ours / up
		if !hasTarget {
			return fmt.Sprintf("%.1f%% of upstream\t\t", 100*share)
		}
		return fmt.Sprintf("%.1f%% of upstream\t<= %.0f%%\t%s", 100*share, 100*t.Max, yesNo(share <= t.Max))
	}
	ratio := up / ours
	text := fmt.Sprintf("%.2fx %s", ratio, "faster")
	isWall := strings.Contains(m.Metric, "wall_")
	if !isWall {
		text = fmt.Sprintf("%.2fx %s", ratio, "less")
	}
	if ratio < 1 { // say "3x slower", not "0.33x faster"
		text = fmt.Sprintf("%.2fx %s", 1/ratio, "slower")
		if !isWall {
			text = fmt.Sprintf("%.2fx %s", 1/ratio, "more")
		}
	}
	if !hasTarget {
		return text + "\t\t"
	}
	return fmt.Sprintf("%s\t>= %.0fx\t%s", text, t.Min, yesNo(ratio >= t.Min))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
