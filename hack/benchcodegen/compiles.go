package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// compileRecord is what one run of the compiler (or linker) under
// `go build -toolexec 'benchcodegen toolexec -log FILE'` cost.
type compileRecord struct {
	Tool    string  // "compile" or "link"
	Package string  // the -p argument (the import path); for link its last argument
	RSSMB   float64 // peak RSS of that one process
	CPU     time.Duration
}

// toolexecCmd runs a Go tool as `go build -toolexec` asks (args are the
// tool's path and arguments) and, for compile and link, appends what the run
// cost to the log file: peak RSS is that of the largest single process of a
// build, so this names the package that sets `go build`'s peak. The tool's
// output and exit status are passed through; its version queries (-V=full,
// which the go command makes to key its cache) are not recorded.
func toolexecCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fset := flag.NewFlagSet("toolexec", flag.ContinueOnError)
	logPath := fset.String("log", "", "file the compile and link runs are appended to (required)")
	if err := fset.Parse(args); err != nil {
		return 2, err
	}
	argv := fset.Args()
	if *logPath == "" || len(argv) == 0 {
		return 2, errors.New("toolexec: want -log FILE followed by the tool and its arguments")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 1, fmt.Errorf("toolexec: %w", err)
	}
	code := cmd.ProcessState.ExitCode()
	tool := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	if (tool != "compile" && tool != "link") || slices.Contains(argv[1:], "-V=full") {
		return code, nil
	}
	pkg := argv[len(argv)-1]
	if i := slices.Index(argv, "-p"); i > 0 && i+1 < len(argv) {
		pkg = argv[i+1]
	}
	cpu, rss := usage(cmd.ProcessState)
	// One short write in append mode: concurrent compiles do not interleave.
	line := fmt.Sprintf("%s\t%s\t%s\t%s\n", tool, pkg,
		strconv.FormatFloat(rss, 'f', 1, 64), strconv.FormatFloat(cpu.Seconds(), 'f', 3, 64))
	f, err := os.OpenFile(*logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return 1, fmt.Errorf("toolexec: record %s: %w", pkg, err)
	}
	return code, nil
}

// readCompileLog parses toolexecCmd's log.
func readCompileLog(path string) ([]compileRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read compile log: %w", err)
	}
	defer f.Close()
	var recs []compileRecord
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields, got %d", path, n, len(fields))
		}
		rss, err1 := strconv.ParseFloat(fields[2], 64)
		cpu, err2 := strconv.ParseFloat(fields[3], 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		recs = append(recs, compileRecord{Tool: fields[0], Package: fields[1], RSSMB: rss, CPU: time.Duration(cpu * float64(time.Second))})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read compile log: %w", err)
	}
	return recs, nil
}

// compilesCmd prints the largest compiles of a toolexec log and records the
// largest one's peak RSS (metric compile_max_rss_mb) and the number of
// packages compiled (compile_packages).
func compilesCmd(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("compiles", flag.ContinueOnError)
	caseName := fset.String("case", "", "case name recorded in the results (required)")
	contender := fset.String("contender", "", "contender recorded in the results (required)")
	results := fset.String("results", "", "results file to append rows to (required)")
	top := fset.Int("top", 3, "how many of the largest compiles to print")
	trim := fset.String("trim", "", "prefix removed from the package paths printed")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if *caseName == "" || *contender == "" || *results == "" || fset.NArg() != 1 {
		return errors.New("compiles: want -case, -contender, -results and one toolexec log")
	}
	recs, err := readCompileLog(fset.Arg(0))
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("compiles: %s records no compile (was go build run with -toolexec?)", fset.Arg(0))
	}
	slices.SortStableFunc(recs, func(a, b compileRecord) int {
		switch {
		case a.RSSMB > b.RSSMB:
			return -1
		case a.RSSMB < b.RSSMB:
			return 1
		}
		return strings.Compare(a.Package, b.Package)
	})
	fmt.Fprintf(stdout, "%s: %s: %d processes; the largest:\n", *caseName, *contender, len(recs))
	for _, r := range recs[:min(*top, len(recs))] {
		fmt.Fprintf(stdout, "%s:   %-7s %6.1f MB  cpu %6.3fs  %s\n", *caseName, r.Tool, r.RSSMB, r.CPU.Seconds(), strings.TrimPrefix(r.Package, *trim))
	}
	return appendRows(*results, []row{
		{*caseName, *contender, "compile_max_rss_mb", recs[0].RSSMB},
		{*caseName, *contender, "compile_packages", float64(len(recs))},
	})
}
