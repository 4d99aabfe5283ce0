package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// row is one measured figure. The results file holds one row per line as
// tab-separated case, contender, metric, value, so the shell script can add
// rows of its own (compile results) with printf.
//
// Contender is "ours", "upstream", or "upstream:<step>" for the share of one
// command in a multi-command contender. Metrics: wall_s, cpu_s, rss_mb (medians
// over the timed runs), wall_min_s (fastest run), inputs (input packages),
// go_files, go_lines, go_lines_noheader, code_lines, deterministic and compiles (1 or 0);
// measure -prefix adds a prefix (compile_wall_s is the time go build took);
// compiles adds compile_max_rss_mb (the largest single compile) and
// compile_packages.
type row struct {
	Case, Contender, Metric string
	Value                   float64
}

func appendRows(path string, rows []row) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open results: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Case, r.Contender, r.Metric, strconv.FormatFloat(r.Value, 'g', -1, 64))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write results %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write results %s: %w", path, err)
	}
	return nil
}

func readRows(path string) ([]row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var rows []row
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields, got %d", path, i+1, len(f))
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: value: %w", path, i+1, err)
		}
		rows = append(rows, row{Case: f[0], Contender: f[1], Metric: f[2], Value: v})
	}
	return rows, nil
}
