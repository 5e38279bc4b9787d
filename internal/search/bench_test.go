package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"casebook/internal/library"
)

// The benchmarks run on a synthetic library of n incidents made from the
// real ones: each copy keeps its classification and text, gets another
// organization and date, and has each section extended with words drawn
// from a Zipf-distributed vocabulary, so the index grows a long tail of rare
// terms the way a large real library would. The real playbooks are added
// as they are.
func syntheticLibrary(tb testing.TB, n int) *library.Library {
	base := loadLibrary(tb)
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	vocab := syntheticVocabulary(rng, 5000)
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ")
	}
	orgs := make([]string, 400)
	for i := range orgs {
		orgs[i] = strings.ToUpper(vocab[i][:1]) + vocab[i][1:] + " " + []string{"Labs", "Cloud", "Inc", "Systems"}[i%4]
	}
	lib := &library.Library{Taxonomy: base.Taxonomy, Playbooks: base.Playbooks, Hash: fmt.Sprintf("synthetic%08d%s", n, base.Hash)}
	for i := range n {
		src := base.Incidents[i%len(base.Incidents)]
		in := *src
		in.ID = fmt.Sprintf("IL-%05d", i)
		in.Title = src.Title + " " + words(3)
		in.Organization = orgs[rng.IntN(len(orgs))]
		in.Year = 2015 + rng.IntN(12)
		in.Date = fmt.Sprintf("%d-%02d-%02d", in.Year, 1+rng.IntN(12), 1+rng.IntN(28))
		full := src.FullSections()
		in.Sections, in.Body = make([]library.Section, len(full)), library.Body{}
		for j, s := range full {
			s.Text = s.Text + " " + words(15)
			in.Sections[j] = s
		}
		lib.Incidents = append(lib.Incidents, &in)
	}
	library.SortNewestFirst(lib.Incidents)
	return lib
}

func syntheticVocabulary(rng *rand.Rand, n int) []string {
	syll := []string{"ka", "to", "ri", "mel", "dor", "sun", "vex", "lo", "pra", "ne", "qui", "zen", "ba", "tor", "li", "gos"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

var (
	benchIndexes sync.Map // size -> *Index, built once per test binary
	benchDirs    sync.Map // their folders, removed by TestMain
)

func benchIndex(b *testing.B, n int) *Index {
	if ix, ok := benchIndexes.Load(n); ok {
		return ix.(*Index)
	}
	dir, err := os.MkdirTemp("", "casebook-search-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDirs.Store(dir, true)
	ix, err := Open(dir, syntheticLibrary(b, n))
	if err != nil {
		b.Fatal(err)
	}
	benchIndexes.Store(n, ix)
	return ix
}

var benchSizes = []int{1000, 10000}

// BenchmarkIndexBuild measures a cold build: documents to a finished,
// verified index on disk.
func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range benchSizes {
		lib := syntheticLibrary(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				dir := b.TempDir()
				ix, err := Open(dir, lib)
				if err != nil {
					b.Fatal(err)
				}
				ix.Close()
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkIndexReopen measures the warm start: an unchanged library finds
// its index, checks it and opens it without indexing anything.
func BenchmarkIndexReopen(b *testing.B) {
	for _, n := range benchSizes {
		lib := syntheticLibrary(b, n)
		dir := b.TempDir()
		ix, err := Open(dir, lib)
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			cpu := cpuTime()
			defer reportCPU(b, cpu)
			for b.Loop() {
				ix, err := Open(dir, lib)
				if err != nil || !ix.Info().Reused {
					b.Fatalf("reopen: %v %+v", err, ix.Info())
				}
				ix.Close()
			}
		})
	}
}

// benchQueries is the query mix: plain words, phrases, typos, pasted
// errors, identifiers, Korean, with and without filters, and the empty
// query of the library page.
var benchQueries = []struct {
	name string
	req  Request
}{
	{"words", Request{Query: "gpu node not ready"}},
	{"words-long", Request{Query: "GPU node present but workload not scheduled"}},
	{"phrase", Request{Query: `"kernel panic"`}},
	{"phrase-common", Request{Query: `"memory limit"`}},
	{"typo", Request{Query: "karpneter node repair"}},
	{"error", Request{Query: "Failed to initialize NVML: Unknown Error"}},
	{"error-long", Request{Query: "0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) had untolerated taint"}},
	{"identifier", Request{Query: "AcceleratedHardwareReady=False"}},
	{"korean", Request{Query: "노드 자동 복구"}},
	{"filtered", Request{Query: "outage", Filters: map[library.Facet][]string{library.FacetDomain: {"gpu"}}}},
	{"filtered-2", Request{Query: "dns", Filters: map[library.Facet][]string{library.FacetSymptom: {"service-outage", "elevated-error-rate"}}, Year: []int{2024}}},
	{"list", Request{}},
	{"list-filtered", Request{Filters: map[library.Facet][]string{library.FacetComponent: {"gpu-driver"}}}},
}

// BenchmarkSearch runs each query of the mix and reports its median and
// 99th percentile latency in milliseconds next to the mean.
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		ix := benchIndex(b, n)
		for _, q := range benchQueries {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, q.name), func(b *testing.B) {
				var lat []time.Duration
				hits := 0
				cpu := cpuTime()
				for b.Loop() {
					start := time.Now()
					res, err := ix.Search(context.Background(), q.req)
					lat = append(lat, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					hits = res.Total
				}
				reportCPU(b, cpu)
				reportPercentiles(b, lat)
				b.ReportMetric(float64(hits), "hits")
			})
		}
	}
}

// BenchmarkSearchParallel runs the whole mix from every core, for
// throughput.
func BenchmarkSearchParallel(b *testing.B) {
	for _, n := range benchSizes {
		ix := benchIndex(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			var next sync.Mutex
			i := 0
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					next.Lock()
					q := benchQueries[i%len(benchQueries)].req
					i++
					next.Unlock()
					if _, err := ix.Search(context.Background(), q); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

// reportCPU reports the CPU time per operation since start, in
// milliseconds.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// BenchmarkBaseline runs the text queries of the mix as the plainest bleve
// search there is, on the same documents: one English field holding all the
// text, every word required, top 10, no facets, no highlights. On a shared
// machine it calibrates the other figures: what matters is the ratio.
func BenchmarkBaseline(b *testing.B) {
	for _, n := range benchSizes {
		lib := syntheticLibrary(b, n)
		m := mapping.NewIndexMapping()
		m.DefaultAnalyzer = en.AnalyzerName
		m.StoreDynamic, m.DocValuesDynamic = false, false
		path := filepath.Join(b.TempDir(), "baseline")
		cpu := cpuTime()
		bb, err := bleve.NewBuilder(path, m, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range lib.Incidents {
			text := []string{in.Title, in.Summary}
			for _, s := range in.FullSections() {
				text = append(text, s.Text)
			}
			if err := bb.Index(in.ID, map[string]any{"body": strings.Join(text, "\n")}); err != nil {
				b.Fatal(err)
			}
		}
		if err := bb.Close(); err != nil {
			b.Fatal(err)
		}
		b.Logf("baseline build of %d documents: %v CPU", n, cpuTime()-cpu)
		bi, err := bleve.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range benchQueries {
			if q.req.Query == "" || q.req.Filters != nil {
				continue
			}
			b.Run(fmt.Sprintf("%dk/%s", n/1000, q.name), func(b *testing.B) {
				var lat []time.Duration
				cpu := cpuTime()
				for b.Loop() {
					mq := query.NewMatchQuery(strings.ReplaceAll(q.req.Query, `"`, ""))
					mq.SetField("body")
					mq.SetOperator(query.MatchQueryOperatorAnd)
					start := time.Now()
					if _, err := bi.Search(bleve.NewSearchRequest(mq)); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				reportCPU(b, cpu)
				reportPercentiles(b, lat)
			})
		}
		bi.Close()
	}
}
