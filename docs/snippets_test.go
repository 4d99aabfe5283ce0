// Package docs_test checks the code in README.md and docs/*.md against the
// code that compiles: every ```go block is either a mirror of a region of a
// Go file that CI compiles (its module's go vet and go test build it), or an
// excerpt of a generated or input file whose lines it shows in order; a
// block that is neither fails. A drifted snippet fails here (the text
// differs from its mirror) or in its module (the mirror no longer
// compiles).
//
// In the Markdown, the line before a block names what it is checked
// against:
//
//	<!-- snippet: examples/crd/docsnippets/snippets_test.go#readme-use -->
//	<!-- excerpt: examples/crd/generated/listers/samplecontroller/v1alpha1/listers.go -->
//
// A mirror's region is delimited in the Go file by "// doc:begin NAME" and
// "// doc:end NAME" lines (several pairs of one name are joined by a blank
// line); it must equal the block after both are dedented, tabs of the
// indentation read as four spaces. An excerpt's lines must appear in the file in the same order, but
// lines that elide ("...", "…") and trailing "// ..." comments the file
// lacks. go test ./docs -run Snippets -update rewrites each mirrored block
// from its region.
package docs_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the mirrored Go blocks of the docs from their regions")

// docFiles are the Markdown files whose Go blocks are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, files...)
}

// block is one fenced code block of a Markdown file.
type block struct {
	file   string
	line   int    // of the opening fence, 1-based
	lang   string // "go", "sh", …
	indent string // the fence's indentation
	check  string // the comment before it: "snippet: …", "excerpt: …" or ""
	body   []string
	start  int // index in the file's lines of the first body line
}

var (
	fenceRe = regexp.MustCompile("^(\\s*)```([a-z]*)\\s*$")
	checkRe = regexp.MustCompile(`^\s*<!-- ((?:snippet|excerpt|shell): .*?) -->\s*$`)
)

func readBlocks(t *testing.T, file string) ([]string, []block) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var blocks []block
	for i := 0; i < len(lines); i++ {
		m := fenceRe.FindStringSubmatch(lines[i])
		if m == nil || m[2] == "" {
			continue
		}
		b := block{file: file, line: i + 1, lang: m[2], indent: m[1], start: i + 1}
		for j := i - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if c := checkRe.FindStringSubmatch(lines[j]); c != nil {
				b.check = c[1]
			}
			break
		}
		j := i + 1
		for ; j < len(lines) && !fenceRe.MatchString(lines[j]); j++ {
			b.body = append(b.body, lines[j])
		}
		if j == len(lines) {
			t.Fatalf("%s:%d: unterminated code block", file, i+1)
		}
		blocks = append(blocks, b)
		i = j
	}
	return lines, blocks
}

// normalize dedents lines, reads tabs in their indentation as four spaces
// and drops trailing blanks, for comparing a block with its mirror.
func normalize(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		rest := strings.TrimLeft(l, " \t")
		lead := strings.ReplaceAll(l[:len(l)-len(rest)], "\t", "    ")
		out[i] = strings.TrimRight(lead+rest, " \t")
	}
	prefix := -1
	for _, l := range out {
		if l == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if prefix < 0 || n < prefix {
			prefix = n
		}
	}
	for i, l := range out {
		if len(l) >= prefix && prefix > 0 {
			out[i] = l[prefix:]
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// region returns the lines between "// doc:begin name" and "// doc:end
// name" in file (relative to the repository root), every pair joined by a
// blank line.
func region(t *testing.T, file, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch strings.TrimSpace(l) {
		case "// doc:begin " + name:
			if found {
				out = append(out, "")
			}
			in, found = true, true
			continue
		case "// doc:end " + name:
			in = false
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("%s has no region %q", file, name)
	}
	return normalize(out)
}

// reindent writes the leading indentation of a normalized line (four
// spaces a level) as tabs, as gofmt does, or as spaces inside a list item's
// block (where Markdown renderers widen tabs).
func reindent(l string, spaces bool) string {
	n := len(l) - len(strings.TrimLeft(l, " "))
	if spaces {
		return l
	}
	return strings.Repeat("\t", n/4) + l[n/4*4:]
}

var commentRe = regexp.MustCompile(`\s+//.*$`)

// excerptOf reports the first line of want (a block) that does not appear,
// in order, in the lines of file.
func excerptOf(t *testing.T, file string, want []string) (missing string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var have []string
	for _, l := range strings.Split(string(data), "\n") {
		have = append(have, squash(l))
	}
	at := 0
	for _, w := range want {
		if strings.Contains(w, "...") || strings.Contains(w, "…") || strings.TrimSpace(w) == "" {
			continue
		}
		candidates := []string{squash(w), squash(commentRe.ReplaceAllString(w, ""))}
		i := slices.IndexFunc(have[at:], func(h string) bool { return slices.Contains(candidates, h) })
		if i < 0 {
			return w
		}
		at += i + 1
	}
	return ""
}

// TestSnippets checks every Go block of README.md and docs/*.md.
func TestSnippets(t *testing.T) {
	var checked int
	for _, file := range docFiles(t) {
		lines, blocks := readBlocks(t, file)
		changed := false
		// Last to first, so that rewriting a block leaves the line numbers
		// of those before it alone.
		for i := len(blocks) - 1; i >= 0; i-- {
			b := blocks[i]
			if b.lang != "go" {
				continue
			}
			where := fmt.Sprintf("%s:%d", strings.TrimPrefix(file, "../"), b.line)
			kind, arg, _ := strings.Cut(b.check, ": ")
			switch kind {
			case "snippet":
				path, name, ok := strings.Cut(arg, "#")
				if !ok {
					t.Errorf("%s: %q: want FILE#NAME", where, arg)
					continue
				}
				want := region(t, path, name)
				got := normalize(b.body)
				if slices.Equal(got, want) {
					checked++
					continue
				}
				if *update {
					body := make([]string, len(want))
					for i, l := range want {
						if l != "" {
							l = b.indent + reindent(l, b.indent != "")
						}
						body[i] = l
					}
					lines = slices.Replace(lines, b.start, b.start+len(b.body), body...)
					changed = true
					t.Logf("%s: rewritten from %s", where, arg)
					continue
				}
				t.Errorf("%s differs from %s (go test ./docs -run Snippets -update rewrites it):\n--- doc\n%s\n--- %s\n%s",
					where, arg, strings.Join(got, "\n"), path, strings.Join(want, "\n"))
			case "excerpt":
				if m := excerptOf(t, arg, b.body); m != "" {
					t.Errorf("%s: line %q is not in %s (in the block's order)", where, strings.TrimSpace(m), arg)
					continue
				}
				checked++
			default:
				t.Errorf("%s: a Go block with no <!-- snippet: FILE#NAME --> or <!-- excerpt: FILE --> before it: every Go block is checked", where)
			}
		}
		if changed {
			if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 20 && !t.Failed() {
		t.Errorf("only %d Go blocks checked: the docs hold more", checked)
	}
}
