package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	Cold         StartRun      `json:"cold"`
	Warm         []StartRun    `json:"warm"`
	HTTP         []HTTPRun     `json:"http"`
	MemAfterHTTP Mem           `json:"mem_after_http"`
	Search       *SearchRun    `json:"search"`
	FTS          *FTSRun       `json:"fts"`
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

		logf("%d: cold start", n)
		srv, err := StartServer(ctx, cfg.Server, libDir, dataDir, cfg.ServerEnv, 10*time.Minute)
		if err != nil {
			return nil, fmt.Errorf("%d incidents, cold start: %w", n, err)
		}
		sr.Cold = srv.Start
		srv.Stop()
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
		for _, ep := range endpoints() {
			logf("%d: HTTP %s, %d clients for %s", n, ep.name, cfg.HTTP.Clients, cfg.HTTP.Duration)
			spec := cfg.HTTP
			spec.ServerPid = srv.Pid()
			hr, err := Load(ctx, ep.name, srv.Addr, ep.paths, spec)
			if err != nil {
				srv.Stop()
				return nil, err
			}
			sr.HTTP = append(sr.HTTP, hr)
		}
		sr.MemAfterHTTP, _ = ReadMem(srv.Pid())
		srv.Stop()

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
	name  string
	paths []string
}

// endpoints are the HTTP tests: the library page, and the search page and
// API over the query mix.
func endpoints() []endpoint {
	var page, api []string
	for _, q := range Mix() {
		page = append(page, "/search?"+q.URLQuery())
		api = append(api, "/api/search?"+q.URLQuery())
	}
	return []endpoint{{"/", []string{"/"}}, {"/search?q=…", page}, {"/api/search?q=…", api}}
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
