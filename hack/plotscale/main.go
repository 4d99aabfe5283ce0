// Command plotscale draws what bench/builtin's -json files hold as one SVG:
// client CPU per object, peak RSS and heap after GC against the number of
// objects (log scale), one line per contender and WatchList mode (solid: on,
// dashed: off), each size the median of its runs; a contender that died
// before syncing a size is a cross at its last peak RSS (one that died
// later, in its relist, synced: its point is drawn). Every file is one Pod
// shape; several files (say realistic Pods at 10k–100k and small Pods at
// 1M) are drawn into
// the same panels, a shape's lines marked by its points (circles:
// realistic, squares: small). Standard library only: the SVG is written by
// hand.
//
// Usage: go run ./hack/plotscale -o docs/images/scale.svg FILE.json...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// run is the part of bench/builtin's runResult this reads.
type run struct {
	Resource  string
	Size      int
	Contender string
	WatchList bool
	Sync      struct {
		Objects     int // objects synced: a run that died later (in its relist) has them
		CPUSeconds  float64
		MaxRSSBytes int64
		HeapAfterGC uint64
	}
	MaxRSS int64
	Error  string
}

type report struct {
	PodShape   string
	Contenders []string
	Runs       []run
}

// point is one size of one series.
type point struct {
	n            int
	cpuPerObjUS  float64 // client CPU to sync per object
	peakMB       float64 // peak RSS at sync
	heapMB       float64 // heap after GC once synced
	died         bool
	lastPeakMB   float64 // for a run that died
	shapeOfPoint string
}

type series struct {
	contender string
	watchList bool
	shape     string
	points    []point
}

var colors = map[string]string{
	"ours":                     "#1f77b4",
	"ours-projection":          "#2ca02c",
	"ours-projection-interned": "#17becf",
	"client-go-typed":          "#d62728",
	"client-go-metadata":       "#ff7f0e",
	"controller-runtime":       "#9467bd",
}

func main() {
	out := flag.String("o", "", "the SVG file to write (default: stdout)")
	title := flag.String("title", "Informers of Pods from a real kube-apiserver: cost against N", "the plot's title")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: plotscale [-o FILE.svg] FILE.json...")
		os.Exit(2)
	}
	var all []series
	for _, path := range flag.Args() {
		b, err := os.ReadFile(path)
		if err != nil {
			fatal(err)
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			fatal(fmt.Errorf("%s: %w", path, err))
		}
		all = append(all, collect(r)...)
	}
	if len(all) == 0 {
		fatal(fmt.Errorf("no Pod runs in %s", strings.Join(flag.Args(), ", ")))
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fatal(err)
		}
		defer func() {
			if err := f.Close(); err != nil {
				fatal(err)
			}
		}()
		w = f
	}
	draw(w, *title, all)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "plotscale:", err)
	os.Exit(1)
}

// collect groups r's Pod runs by contender and mode, one point per size
// (medians of the runs that synced, also those that died afterwards, in
// their relist; a size where every run died before syncing is a point
// that says so).
func collect(r report) []series {
	shape := r.PodShape
	if shape == "" {
		shape = "realistic"
	}
	type key struct {
		c  string
		wl bool
	}
	bySize := map[key]map[int][]run{}
	var order []key
	for _, x := range r.Runs {
		if x.Resource != "pods" {
			continue
		}
		k := key{x.Contender, x.WatchList}
		if bySize[k] == nil {
			bySize[k] = map[int][]run{}
			order = append(order, k)
		}
		bySize[k][x.Size] = append(bySize[k][x.Size], x)
	}
	var out []series
	for _, k := range order {
		s := series{contender: k.c, watchList: k.wl, shape: shape}
		var sizes []int
		for n := range bySize[k] {
			sizes = append(sizes, n)
		}
		slices.Sort(sizes)
		for _, n := range sizes {
			var cpu, peak, heap, lastPeak []float64
			for _, x := range bySize[k][n] {
				if x.Error != "" && x.Sync.Objects < n {
					lastPeak = append(lastPeak, float64(x.MaxRSS)/1e6)
					continue
				}
				cpu = append(cpu, x.Sync.CPUSeconds/float64(n)*1e6)
				peak = append(peak, float64(x.Sync.MaxRSSBytes)/1e6)
				heap = append(heap, float64(x.Sync.HeapAfterGC)/1e6)
			}
			p := point{n: n, shapeOfPoint: shape}
			if len(cpu) == 0 {
				p.died, p.lastPeakMB = true, median(lastPeak)
			} else {
				p.cpuPerObjUS, p.peakMB, p.heapMB = median(cpu), median(peak), median(heap)
			}
			s.points = append(s.points, p)
		}
		out = append(out, s)
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// panel is one chart: its title, its y value and whether y is logarithmic.
type panel struct {
	title string
	y     func(p point) float64
	logY  bool
}

const (
	panelW, panelH = 360, 300
	marginL        = 62
	marginR        = 12
	marginT        = 46
	marginB        = 46
	legendH        = 70
)

func draw(w io.Writer, title string, all []series) {
	panels := []panel{
		{"client CPU to sync per Pod (µs)", func(p point) float64 { return p.cpuPerObjUS }, false},
		{"peak RSS at sync (MB)", func(p point) float64 { return p.peakMB }, true},
		{"heap after GC once synced (MB)", func(p point) float64 { return p.heapMB }, true},
	}
	minN, maxN := math.Inf(1), math.Inf(-1)
	for _, s := range all {
		for _, p := range s.points {
			minN, maxN = math.Min(minN, float64(p.n)), math.Max(maxN, float64(p.n))
		}
	}
	xlo, xhi := decadeBelow(minN), decadeAbove(maxN)
	if xhi <= xlo {
		xhi = xlo * 10
	}
	width := len(panels)*(panelW+marginL+marginR) + 10
	height := marginT + panelH + marginB + legendH + 20
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%d" y="18" font-size="15" font-weight="bold">%s</text>`+"\n", 10, esc(title))
	for i, pn := range panels {
		ox := 5 + i*(panelW+marginL+marginR) + marginL
		oy := marginT + 10
		// y range over every series' points.
		ylo, yhi := math.Inf(1), math.Inf(-1)
		for _, s := range all {
			for _, p := range s.points {
				v := pn.y(p)
				if p.died {
					if pn.logY && p.lastPeakMB > 0 {
						v = p.lastPeakMB
					} else {
						continue
					}
				}
				if v > 0 {
					ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
				}
			}
		}
		if math.IsInf(ylo, 0) {
			ylo, yhi = 1, 10
		}
		if pn.logY {
			ylo, yhi = niceFloor(ylo), niceCeil(yhi)
		} else {
			ylo, yhi = 0, niceCeil(yhi*1.1)
		}
		xpos := func(n float64) float64 {
			return float64(ox) + (math.Log10(n)-math.Log10(xlo))/(math.Log10(xhi)-math.Log10(xlo))*panelW
		}
		ypos := func(v float64) float64 {
			var f float64
			if pn.logY {
				f = (math.Log10(v) - math.Log10(ylo)) / (math.Log10(yhi) - math.Log10(ylo))
			} else {
				f = (v - ylo) / (yhi - ylo)
			}
			return float64(oy) + panelH - f*panelH
		}
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", ox, oy-8, esc(pn.title))
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", ox, oy, panelW, panelH)
		// x grid: decades and 2, 5 within.
		for d := xlo; d <= xhi*1.0001; d *= 10 {
			for _, m := range []float64{1, 2, 5} {
				n := d * m
				if n > xhi*1.0001 {
					break
				}
				x := xpos(n)
				stroke := "#e4e4e4"
				if m == 1 {
					stroke = "#c8c8c8"
				}
				fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x, oy, x, oy+panelH, stroke)
				fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, oy+panelH+15, count(n))
			}
		}
		fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">Pods (log scale)</text>`+"\n", ox+panelW/2, oy+panelH+32)
		// y grid.
		for _, v := range yTicks(ylo, yhi, pn.logY) {
			y := ypos(v)
			fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>`+"\n", ox, y, ox+panelW, y)
			fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", ox-4, y+4, num(v))
		}
		for _, s := range all {
			color := colors[s.contender]
			if color == "" {
				color = "#7f7f7f"
			}
			dash := ""
			if !s.watchList {
				dash = ` stroke-dasharray="6,4"`
			}
			var pts []string
			for _, p := range s.points {
				if p.died {
					continue
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xpos(float64(p.n)), ypos(pn.y(p))))
			}
			if len(pts) > 1 {
				fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), color, dash)
			}
			for _, p := range s.points {
				x := xpos(float64(p.n))
				if p.died {
					if !pn.logY || p.lastPeakMB <= 0 {
						continue
					}
					y := ypos(p.lastPeakMB)
					fmt.Fprintf(w, `<path d="M%.1f %.1fl8 8m0 -8l-8 8" stroke="%s" stroke-width="2.5"/>`+"\n", x-4, y-4, color)
					continue
				}
				y := ypos(pn.y(p))
				if p.shapeOfPoint == "small" {
					fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>`+"\n", x-3.5, y-3.5, color)
				} else {
					fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`+"\n", x, y, color)
				}
			}
		}
	}
	// Legend: contenders (colors), modes (dash), shapes (markers).
	ly := marginT + 10 + panelH + marginB + 8
	x := 10
	var names []string
	for _, s := range all {
		if !slices.Contains(names, s.contender) {
			names = append(names, s.contender)
		}
	}
	for _, c := range names {
		color := colors[c]
		if color == "" {
			color = "#7f7f7f"
		}
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", x, ly, x+24, ly, color)
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", x+30, ly+4, esc(c))
		x += 40 + 8*len(c)
	}
	ly += 22
	fmt.Fprintf(w, `<line x1="10" y1="%d" x2="34" y2="%d" stroke="#444" stroke-width="2"/><text x="40" y="%d">WatchList on</text>`+"\n", ly, ly, ly+4)
	fmt.Fprintf(w, `<line x1="140" y1="%d" x2="164" y2="%d" stroke="#444" stroke-width="2" stroke-dasharray="6,4"/><text x="170" y="%d">WatchList off</text>`+"\n", ly, ly, ly+4)
	fmt.Fprintf(w, `<circle cx="290" cy="%d" r="3.5" fill="#444"/><text x="300" y="%d">realistic Pods</text>`+"\n", ly, ly+4)
	fmt.Fprintf(w, `<rect x="406" y="%.1f" width="7" height="7" fill="#444"/><text x="420" y="%d">small Pods</text>`+"\n", float64(ly)-3.5, ly+4)
	fmt.Fprintf(w, `<path d="M506 %dl8 8m0 -8l-8 8" stroke="#444" stroke-width="2.5"/><text x="520" y="%d">died (last peak RSS)</text>`+"\n", ly-4, ly+4)
	fmt.Fprintln(w, `</svg>`)
}

func decadeBelow(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v))) }
func decadeAbove(v float64) float64 { return math.Pow(10, math.Ceil(math.Log10(v))) }

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	d := decadeBelow(v)
	for _, m := range []float64{1, 2, 5, 10} {
		if d*m >= v {
			return d * m
		}
	}
	return d * 10
}

// niceFloor rounds v down to 1, 2 or 5 times a power of ten.
func niceFloor(v float64) float64 {
	d := decadeBelow(v)
	for _, m := range []float64{5, 2, 1} {
		if d*m <= v {
			return d * m
		}
	}
	return d
}

func yTicks(lo, hi float64, logY bool) []float64 {
	var out []float64
	if logY {
		for d := decadeBelow(lo); d <= hi*1.0001; d *= 10 {
			for _, m := range []float64{1, 2, 5} {
				if v := d * m; v >= lo*0.9999 && v <= hi*1.0001 {
					out = append(out, v)
				}
			}
		}
		return out
	}
	step := niceCeil(hi / 6)
	for v := lo; v <= hi*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

func count(n float64) string {
	switch {
	case n >= 1e6:
		return trim(n/1e6) + "M"
	case n >= 1e3:
		return trim(n/1e3) + "k"
	}
	return trim(n)
}

func num(v float64) string {
	if v >= 1000 {
		return count(v)
	}
	return trim(v)
}

func trim(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
