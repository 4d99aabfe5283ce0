package generator

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"slices"
	"strings"
)

// ErrUsage marks errors in the command line itself (unknown flag, malformed
// flag value, no input packages). ExitCode maps it to 2.
var ErrUsage = errors.New("usage error")

// ErrStale is returned by Run in verify mode when the output on disk differs
// from what would be generated. ExitCode maps it to 1.
var ErrStale = errors.New("generated output is stale")

// ExitCode maps an error returned by ParseArgs or Run to the process exit
// status: 0 for nil and for --help, 2 for usage errors, 1 for everything else
// (bad input, stale output in verify mode, I/O failures).
func ExitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	default:
		return 1
	}
}

// Diagnostic is one problem in the input, reported as
// "path/file.go:LINE:COL: message (hint)". Pos.Filename is relative to the
// working directory of the run so that messages are stable across machines.
// A zero Pos means the problem has no position in a Go file (for example a
// package that does not exist); Subject then names what it is about.
type Diagnostic struct {
	Pos     token.Position
	Subject string
	Message string
	Hint    string
	// Warning marks a problem that does not stop generation: an upstream or
	// kubebuilder marker with no effect (upstream ignores those, and a
	// published module cannot be edited by its users). Run prints warnings
	// to Config.Warnings and exits 0 when there is nothing else.
	Warning bool
}

// String formats d as "file:line:col: message (hint)".
func (d Diagnostic) String() string {
	var b strings.Builder
	switch {
	case d.Pos.Filename != "" && d.Pos.Line > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", d.Pos.Filename, d.Pos.Line, d.Pos.Column)
	case d.Pos.Filename != "":
		fmt.Fprintf(&b, "%s: ", d.Pos.Filename)
	case d.Subject != "":
		fmt.Fprintf(&b, "%s: ", d.Subject)
	}
	if d.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	if d.Hint != "" {
		fmt.Fprintf(&b, " (%s)", d.Hint)
	}
	return b.String()
}

// Diagnostics is every input problem of one run, sorted by position. It is the
// error Run returns for bad input; its Error text is one diagnostic per line.
type Diagnostics []Diagnostic

// Error returns one formatted diagnostic per line.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// sorted returns ds sorted by file, line, column, then message, without
// duplicates.
func (ds Diagnostics) sorted() Diagnostics {
	out := slices.Clone(ds)
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.Subject, b.Subject),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.CompactFunc(out, func(a, b Diagnostic) bool { return a == b })
}

// split separates the errors of ds from its warnings, each sorted.
func (ds Diagnostics) split() (errs, warnings Diagnostics) {
	for _, d := range ds {
		if d.Warning {
			warnings = append(warnings, d)
		} else {
			errs = append(errs, d)
		}
	}
	return errs.sorted(), warnings.sorted()
}

// didYouMean returns a hint naming the candidate closest to got, or "" when
// none is close enough to be a plausible typo.
func didYouMean(got string, candidates ...string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(got), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(2, len(got)/3)
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
