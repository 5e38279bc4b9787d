package bench

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"casebook/internal/bench/corpus"
	"casebook/internal/bench/fts5"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/triage"
)

// describePaste is a 200-line "kubectl describe pod" of a GPU pod that
// cannot be scheduled, the kind of paste the triage classifier gets.
//
//go:embed testdata/describe-pod-200.txt
var describePaste string

// perPage is the page size of every measured query: the top 10, which is
// also what MRR@10 looks at.
const perPage = 10

// Latencies are the in-process query latencies of one engine over the mix.
type Latencies struct {
	All        Dist            `json:"all"`
	Unfiltered Dist            `json:"unfiltered"`
	Filtered   Dist            `json:"filtered"`
	ByCategory map[string]Dist `json:"by_category"`
	Slowest    []QueryTime     `json:"slowest"` // the queries with the highest p99
	Rounds     int             `json:"rounds"`  // measured passes over the mix
	// CPUPerQuery is the process CPU time (GC included) of the measured
	// passes over the number of searches: unlike wall-clock latency it
	// hardly depends on what else the machine runs.
	CPUPerQuery time.Duration `json:"cpu_per_query"`
	Empty       []string      `json:"empty"` // queries that found nothing
	Errors      []string      `json:"errors"`
}

// SearchRun is what the in-process child measures on one library with
// Casebook's search.
type SearchRun struct {
	Profile      corpus.Profile `json:"profile"`
	Parse        time.Duration  `json:"parse"`
	IndexOpen    time.Duration  `json:"index_open"`
	IndexReused  bool           `json:"index_reused"`
	MemAfterLoad Mem            `json:"mem_after_load"`
	Search       Latencies      `json:"search"`
	MemAfterMix  Mem            `json:"mem_after_mix"`
	Classify     Dist           `json:"classify"`
	ClassifyCPU  time.Duration  `json:"classify_cpu"` // mean CPU per call
	ClassifyTop  string         `json:"classify_top"`
}

// Budget bounds the in-process measurements: the query mix runs up to
// Rounds times and the classifier up to Classifies times, each stopping
// early once its time is spent (after at least two passes), so that a slow
// or busy machine still finishes.
type Budget struct {
	Rounds, Classifies int
	Time               time.Duration // per measurement
}

func (b Budget) more(done int, start time.Time, limit int) bool {
	return done < limit && (done < 2 || b.Time <= 0 || time.Since(start) < b.Time)
}

// MeasureSearch loads the library in libDir, opens its search index under
// dataDir (reusing the one the server built), runs the query mix and
// classifies the paste within budget.
func MeasureSearch(ctx context.Context, libDir, dataDir string, budget Budget, prof ProfileOptions) (*SearchRun, error) {
	run := &SearchRun{}
	start := time.Now()
	lib, _, err := library.Load(os.DirFS(libDir))
	if err != nil {
		return nil, err
	}
	run.Parse = time.Since(start)
	run.Profile = corpus.Describe(lib)
	ix, err := search.OpenWith(dataDir, lib, search.Options{CacheBytes: 0}) // the engine, not the cache
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	run.IndexOpen, run.IndexReused = ix.Info().Took, ix.Info().Reused
	run.MemAfterLoad, _ = ReadMem(0)

	if prof.CPU != "" {
		f, err := os.Create(prof.CPU)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
	}
	run.Search = runMix(budget, func(q Query) (int, error) {
		res, err := ix.Search(ctx, search.Request{Query: q.Text, Kind: q.Kind, Filters: q.Filters, PerPage: perPage})
		if err != nil {
			return 0, err
		}
		return res.Total, nil
	})
	if prof.CPU != "" {
		pprof.StopCPUProfile()
	}
	run.MemAfterMix, _ = ReadMem(0)

	cat, problems := triage.Load(os.DirFS(libDir))
	if cat == nil {
		return nil, fmt.Errorf("triage catalogue: %v", problems)
	}
	if r := cat.Classify(describePaste); len(r.Routes) > 0 {
		run.ClassifyTop = r.Routes[0].Route
	}
	var ds []time.Duration
	cpu := CPUTime()
	for start := time.Now(); budget.more(len(ds), start, budget.Classifies); {
		t := time.Now()
		cat.Classify(describePaste)
		ds = append(ds, time.Since(t))
	}
	run.Classify = Summarise(ds)
	if len(ds) > 0 {
		run.ClassifyCPU = (CPUTime() - cpu) / time.Duration(len(ds))
	}
	return run, nil
}

// FTSRun is what the baseline child measures on one library.
type FTSRun struct {
	Parse       time.Duration `json:"parse"`
	Build       time.Duration `json:"build"`
	Search      Latencies     `json:"search"`
	MemAfterMix Mem           `json:"mem_after_mix"`
	// The same for the tuned FTS5 (fts5.BuildTuned).
	TunedBuild  time.Duration `json:"tuned_build"`
	TunedSearch Latencies     `json:"tuned_search"`
}

// MeasureFTS builds the FTS5 baseline of the library in libDir under dir
// and runs the same mix.
func MeasureFTS(ctx context.Context, libDir, dir string, budget Budget) (*FTSRun, error) {
	run := &FTSRun{}
	start := time.Now()
	lib, _, err := library.Load(os.DirFS(libDir))
	if err != nil {
		return nil, err
	}
	run.Parse = time.Since(start)
	start = time.Now()
	ix, err := fts5.Build(ctx, filepath.Join(dir, "fts5.db"), lib)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	run.Build = time.Since(start)
	mix := func(ix *fts5.Index) Latencies {
		return runMix(budget, func(q Query) (int, error) {
			res, err := ix.Search(ctx, fts5.Request{Query: q.Text, Kind: q.Kind, Filters: q.Filters, PerPage: perPage})
			if err != nil {
				return 0, err
			}
			return res.Total, nil
		})
	}
	run.Search = mix(ix)
	start = time.Now()
	tx, err := fts5.BuildTuned(ctx, filepath.Join(dir, "fts5-tuned.db"), lib)
	if err != nil {
		return nil, err
	}
	defer tx.Close()
	run.TunedBuild = time.Since(start)
	run.TunedSearch = mix(tx)
	run.MemAfterMix, _ = ReadMem(0)
	return run, nil
}

// QueryTime is the latency of one query of the mix.
type QueryTime struct {
	Query string `json:"query"`
	Dist  Dist   `json:"dist"`
}

// slowestShown is how many queries the report lists by p99.
const slowestShown = 5

// runMix runs every query of the mix once unmeasured, then up to
// budget.Rounds times measured, so that no query runs twice in a row.
func runMix(budget Budget, search func(Query) (int, error)) Latencies {
	mix := Mix()
	lat := Latencies{ByCategory: map[string]Dist{}}
	for _, q := range mix {
		n, err := search(q)
		if err != nil {
			lat.Errors = append(lat.Errors, fmt.Sprintf("%s: %v", q.Label(), err))
		} else if n == 0 {
			lat.Empty = append(lat.Empty, q.Label())
		}
	}
	var all, unfiltered, filtered []time.Duration
	byCat := map[string][]time.Duration{}
	byQuery := make([][]time.Duration, len(mix))
	cpu := CPUTime()
	for round, start := 0, time.Now(); budget.more(round, start, budget.Rounds); round++ {
		lat.Rounds++
		for i, q := range mix {
			t := time.Now()
			if _, err := search(q); err != nil {
				continue
			}
			d := time.Since(t)
			all = append(all, d)
			byQuery[i] = append(byQuery[i], d)
			byCat[q.Category] = append(byCat[q.Category], d)
			if q.Filtered() {
				filtered = append(filtered, d)
			} else {
				unfiltered = append(unfiltered, d)
			}
		}
	}
	if len(all) > 0 {
		lat.CPUPerQuery = (CPUTime() - cpu) / time.Duration(len(all))
	}
	lat.All, lat.Unfiltered, lat.Filtered = Summarise(all), Summarise(unfiltered), Summarise(filtered)
	for c, ds := range byCat {
		lat.ByCategory[c] = Summarise(ds)
	}
	for i, ds := range byQuery {
		lat.Slowest = append(lat.Slowest, QueryTime{Query: mix[i].Label(), Dist: Summarise(ds)})
	}
	slices.SortFunc(lat.Slowest, func(a, b QueryTime) int { return cmp.Compare(b.Dist.P99, a.Dist.P99) })
	lat.Slowest = lat.Slowest[:min(slowestShown, len(lat.Slowest))]
	return lat
}
