package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// lineCount is the size of a generated tree.
type lineCount struct {
	Files  int
	Lines  int // non-blank lines, the figure the line-count target is on
	Code   int // lines holding at least one token that is not a comment
	Header int // non-blank lines of license headers (files that start with header)
}

// countLines counts the .go files under root. header, when not empty, is the
// --go-header-file content: files that start with it have its non-blank lines
// counted in Header as well as in Lines.
func countLines(root string, header []byte) (lineCount, error) {
	headerLines := nonBlank(header)
	var c lineCount
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		c.Files++
		c.Lines += nonBlank(src)
		if len(header) > 0 && bytes.HasPrefix(src, header) {
			c.Header += headerLines
		}
		n, err := codeLines(path, src)
		if err != nil {
			return err
		}
		c.Code += n
		return nil
	})
	if err != nil {
		return lineCount{}, fmt.Errorf("count lines under %s: %w", root, err)
	}
	return c, nil
}

func nonBlank(src []byte) int {
	n := 0
	for line := range bytes.Lines(src) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// codeLines counts the lines of src on which a non-comment token starts.
func codeLines(path string, src []byte) (int, error) {
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	lines := map[int]bool{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted automatically at a line end, not written
		}
		lines[file.Line(pos)] = true
	}
	if err := errs.Err(); err != nil {
		return 0, err
	}
	return len(lines), nil
}

func linesCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lines", flag.ContinueOnError)
	caseName := fs.String("case", "", "case name recorded in the results (required)")
	contender := fs.String("contender", "", "contender recorded in the results (required)")
	results := fs.String("results", "", "results file to append rows to (required)")
	headerFile := fs.String("header", "", "the --go-header-file both generators were given; its lines are also reported apart")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var header []byte
	if *headerFile != "" {
		var err error
		if header, err = os.ReadFile(*headerFile); err != nil {
			return fmt.Errorf("lines: %w", err)
		}
	}
	if *caseName == "" || *contender == "" || *results == "" || fs.NArg() == 0 {
		return errors.New("lines: -case, -contender, -results and at least one directory are required")
	}
	var total lineCount
	for _, dir := range fs.Args() {
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("lines: %w", err)
		}
		c, err := countLines(dir, header)
		if err != nil {
			return err
		}
		total.Files += c.Files
		total.Lines += c.Lines
		total.Code += c.Code
		total.Header += c.Header
	}
	fmt.Fprintf(stdout, "%s: %s generated %d .go files, %d non-blank lines (%d of them license header), %d code lines\n",
		*caseName, *contender, total.Files, total.Lines, total.Header, total.Code)
	return appendRows(*results, []row{
		{*caseName, *contender, "go_files", float64(total.Files)},
		{*caseName, *contender, "go_lines", float64(total.Lines)},
		{*caseName, *contender, "go_lines_noheader", float64(total.Lines - total.Header)},
		{*caseName, *contender, "code_lines", float64(total.Code)},
	})
}
