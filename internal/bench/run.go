package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"casebook/internal/bench/corpus"
	"casebook/internal/library"
)

// Config is one benchmark run.
type Config struct {
	Sizes      []int
	Seed       uint64
	Work       string   // scratch folder for libraries and data
	Server     string   // the casebook server binary
	ServerEnv  []string // extra environment of the server (GOGC=…, GOMEMLIMIT=…)
	Self       string   // this program, run again for each in-process child
	Library    string   // the shipped library folder
	Relevance  string   // the relevance set
	HTTP       LoadSpec
	Budget     Budget // of each in-process measurement
	WarmStarts int
	ColdStarts int       // cold loads per size, each on an empty data folder (median reported)
	Log        io.Writer // progress
}

// Report is everything one run measured.
type Report struct {
	Started   time.Time      `json:"started"`
	Took      time.Duration  `json:"took"`
	Commit    string         `json:"commit"`
	GoVersion string         `json:"go_version"`
	CPU       string         `json:"cpu"`
	CPUs      int            `json:"cpus"`
	LoadStart float64        `json:"load_start"`
	LoadEnd   float64        `json:"load_end"`
	ServerEnv []string       `json:"server_env"`
	HTTP      LoadSpec       `json:"http"`
	Budget    Budget         `json:"budget"`
	Shipped   corpus.Profile `json:"shipped"`
	Relevance *Relevance     `json:"relevance"`
	Sizes     []*SizeRun     `json:"sizes"`
}

// SizeRun is everything measured on one generated library.
type SizeRun struct {
	N            int           `json:"n"`
	Generate     time.Duration `json:"generate"`
	Cold         StartRun      `json:"cold"`  // the median of Colds
	Colds        []StartRun    `json:"colds"` // every cold load, in order
	Warm         []StartRun    `json:"warm"`
	HTTP         []HTTPRun     `json:"http"`
	MemAfterHTTP Mem           `json:"mem_after_http"`
	// The query log of the HTTP tests (see BuildQueryLog) and the result
	// cache's hit ratio over it.
	LogQueries   int        `json:"log_queries"`
	LogDistinct  int        `json:"log_distinct"`
	LogRequests  int        `json:"log_requests"`
	CacheHitRate float64    `json:"cache_hit_rate"`
	Search       *SearchRun `json:"search"`
	FTS          *FTSRun    `json:"fts"`
}

// Run measures every size in cfg.Sizes.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	rep := &Report{Started: time.Now(), GoVersion: runtime.Version(), CPU: cpuModel(), CPUs: runtime.NumCPU(),
		LoadStart: LoadAvg(), ServerEnv: cfg.ServerEnv, HTTP: cfg.HTTP, Budget: cfg.Budget, Commit: gitCommit()}
	logf := func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "bench %s  load %.1f  "+format+"\n", append([]any{time.Now().Format("15:04:05"), LoadAvg()}, args...)...)
	}
	lib, _, err := library.Load(os.DirFS(cfg.Library))
	if err != nil {
		return nil, fmt.Errorf("shipped library: %w", err)
	}
	rep.Shipped = corpus.Describe(lib)
	stats := corpus.Measure(lib)

	logf("relevance on the shipped library (%d incidents)", len(lib.Incidents))
	rep.Relevance = &Relevance{}
	if err := cfg.child(ctx, rep.Relevance, "child-relevance", "-lib", cfg.Library, "-relevance", cfg.Relevance,
		"-dir", filepath.Join(cfg.Work, "relevance")); err != nil {
		return nil, err
	}

	for _, n := range cfg.Sizes {
		sr := &SizeRun{N: n}
		rep.Sizes = append(rep.Sizes, sr)
		libDir := filepath.Join(cfg.Work, fmt.Sprintf("lib-%d", n))
		dataDir := filepath.Join(cfg.Work, fmt.Sprintf("data-%d", n))
		for _, d := range []string{libDir, dataDir} {
			if err := os.RemoveAll(d); err != nil {
				return nil, err
			}
		}
		logf("%d: generating", n)
		start := time.Now()
		if err := corpus.Generate(libDir, os.DirFS(cfg.Library), stats, corpus.Options{N: n, Seed: cfg.Seed, Workers: runtime.NumCPU()}); err != nil {
			return nil, err
		}
		sr.Generate = time.Since(start)

		// Several cold loads, each on an empty data folder, after the
		// files written so far are on disk: one load on a two-core machine
		// shared with others varies by a third from minute to minute.
		var srv *Server
		for i := range max(cfg.ColdStarts, 1) {
			if err := os.RemoveAll(dataDir); err != nil {
				return nil, err
			}
			syncDisks()
			logf("%d: cold start %d", n, i+1)
			if srv, err = StartServer(ctx, cfg.Server, libDir, dataDir, cfg.ServerEnv, 10*time.Minute); err != nil {
				return nil, fmt.Errorf("%d incidents, cold start: %w", n, err)
			}
			sr.Colds = append(sr.Colds, srv.Start)
			srv.Stop()
		}
		sr.Cold = medianStart(sr.Colds)
		for i := range cfg.WarmStarts {
			logf("%d: warm start %d", n, i+1)
			if srv, err = StartServer(ctx, cfg.Server, libDir, dataDir, cfg.ServerEnv, 10*time.Minute); err != nil {
				return nil, fmt.Errorf("%d incidents, warm start: %w", n, err)
			}
			sr.Warm = append(sr.Warm, srv.Start)
			if i < cfg.WarmStarts-1 {
				srv.Stop()
			}
		}
		srv.Stop()
		genLib, _, err := library.Load(os.DirFS(libDir))
		if err != nil {
			return nil, fmt.Errorf("%d incidents: load for the query log: %w", n, err)
		}
		ql := BuildQueryLog(genLib, DefaultLog)
		genLib = nil
		sr.LogQueries, sr.LogDistinct, sr.LogRequests = len(ql.Queries), ql.Distinct(), len(ql.Log)
		for _, phase := range httpPhases(ql) {
			env := append(append([]string(nil), cfg.ServerEnv...), phase.env...)
			if srv, err = StartServer(ctx, cfg.Server, libDir, dataDir, env, 10*time.Minute); err != nil {
				return nil, fmt.Errorf("%d incidents, server for the HTTP tests: %w", n, err)
			}
			for _, ep := range phase.endpoints {
				logf("%d: HTTP %s, %d clients for %s", n, ep.name, cfg.HTTP.Clients, cfg.HTTP.Duration)
				spec := cfg.HTTP
				spec.ServerPid = srv.Pid()
				hr, err := Load(ctx, ep.name, srv.Addr, ep.paths, spec)
				if err != nil {
					srv.Stop()
					return nil, err
				}
				hr.Target, hr.TargetRPS, hr.TargetP99 = ep.target, ep.targetRPS, ep.targetP99
				sr.HTTP = append(sr.HTTP, hr)
			}
			if phase.cached {
				sr.CacheHitRate = cacheHitRate(srv.Addr)
			}
			if m, err := ReadMem(srv.Pid()); err == nil && m.HWM > sr.MemAfterHTTP.HWM {
				sr.MemAfterHTTP = m
			}
			srv.Stop()
		}

		logf("%d: in-process search and classify", n)
		sr.Search = &SearchRun{}
		if err := cfg.child(ctx, sr.Search, "child-search", "-lib", libDir, "-data", dataDir, "-rounds", fmt.Sprint(cfg.Budget.Rounds),
			"-classify", fmt.Sprint(cfg.Budget.Classifies), "-budget", cfg.Budget.Time.String()); err != nil {
			return nil, err
		}
		logf("%d: FTS5 baseline", n)
		sr.FTS = &FTSRun{}
		if err := cfg.child(ctx, sr.FTS, "child-fts", "-lib", libDir, "-dir", filepath.Join(cfg.Work, fmt.Sprintf("fts-%d", n)),
			"-rounds", fmt.Sprint(cfg.Budget.Rounds), "-budget", cfg.Budget.Time.String()); err != nil {
			return nil, err
		}
		for _, d := range []string{libDir, dataDir, filepath.Join(cfg.Work, fmt.Sprintf("fts-%d", n))} {
			os.RemoveAll(d)
		}
	}
	rep.LoadEnd = LoadAvg()
	rep.Took = time.Since(rep.Started)
	return rep, nil
}

type endpoint struct {
	name      string
	paths     []string
	target    string        // the target for this endpoint, if any
	targetRPS float64       // ... as numbers
	targetP99 time.Duration // 0: none
}

// httpPhase is one server run of the HTTP tests.
type httpPhase struct {
	env       []string
	cached    bool
	endpoints []endpoint
}

// httpPhases are the HTTP tests: first with the result cache off (the
// library page, the search page and the API over the fixed mix, and the
// API over the query log), then with it on (the API and the page over the
// query log), so cached and uncached figures stand side by side.
func httpPhases(ql *QueryLog) []httpPhase {
	var page, api []string
	for _, q := range Mix() {
		page = append(page, "/search?"+q.URLQuery())
		api = append(api, "/api/search?"+q.URLQuery())
	}
	return []httpPhase{
		{env: []string{"CASEBOOK_SEARCH_CACHE_MB=0"}, endpoints: []endpoint{
			{name: "/", paths: []string{"/"}},
			{name: "/search?q=… (mix, uncached)", paths: page, target: "≥ 300 req/s", targetRPS: 300},
			{name: "/api/search?q=… (mix, uncached)", paths: api, target: "≥ 600 req/s, p99 ≤ 50 ms", targetRPS: 600, targetP99: 50 * time.Millisecond},
			{name: "/api/search?q=… (query log, uncached)", paths: ql.Paths("/api/search?"), target: "≥ 600 req/s, p99 ≤ 50 ms", targetRPS: 600, targetP99: 50 * time.Millisecond},
		}},
		{cached: true, endpoints: []endpoint{
			{name: "/api/search?q=… (query log, cached)", paths: ql.Paths("/api/search?"), target: "≥ 2,000 req/s, p99 ≤ 50 ms", targetRPS: 2000, targetP99: 50 * time.Millisecond},
			{name: "/search?q=… (query log, cached)", paths: ql.Paths("/search?"), target: "≥ 300 req/s", targetRPS: 300},
		}},
	}
}

// cacheHitRate reads the server's search cache counters from /metrics.
func cacheHitRate(addr string) float64 {
	resp, err := http.Get(addr + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var hit, miss float64
	for _, line := range strings.Split(string(body), "\n") {
		var v float64
		switch {
		case strings.HasPrefix(line, `casebook_search_cache_lookups_total{result="hit"}`):
			fmt.Sscan(strings.Fields(line)[1], &v)
			hit = v
		case strings.HasPrefix(line, `casebook_search_cache_lookups_total{result="miss"}`):
			fmt.Sscan(strings.Fields(line)[1], &v)
			miss = v
		}
	}
	if hit+miss == 0 {
		return 0
	}
	return hit / (hit + miss)
}

// child runs this program again with args and decodes its JSON answer into
// v, so that each measurement has a process, and a peak RSS, of its own.
func (cfg Config) child(ctx context.Context, v any, args ...string) error {
	cmd := exec.CommandContext(ctx, cfg.Self, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", args[0], err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	return nil
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// gitCommit names the code measured: HEAD, marked when Go files differ
// from it (several people edit one working tree).
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if exec.Command("git", "diff", "--quiet", "HEAD", "--", "*.go").Run() != nil {
		commit += " with uncommitted changes"
	}
	return commit
}
