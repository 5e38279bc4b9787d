// Command bench runs Casebook's benchmark suite and writes
// docs/performance.md. scripts/bench.sh (make bench) builds it and the
// server and runs it; see internal/bench for what it measures.
//
// The child-* commands are the in-process measurements; the suite runs
// them as separate processes so each has its own peak RSS.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"casebook/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && strings.HasPrefix(args[0], "child-") {
		return runChild(ctx, args[0], args[1:], stdout, stderr)
	}
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	sizes := fl.String("sizes", "1000,10000", "library sizes, comma-separated")
	seed := fl.Uint64("seed", 1, "corpus seed")
	work := fl.String("work", filepath.Join(os.TempDir(), "casebook-bench"), "scratch folder (deleted at the end unless -keep)")
	keep := fl.Bool("keep", false, "keep the scratch folder")
	server := fl.String("server", "bin/casebook", "casebook server binary")
	lib := fl.String("library", "library", "the shipped library folder")
	rel := fl.String("relevance", "internal/search/testdata/relevance.yaml", "relevance set")
	out := fl.String("out", "docs/performance.md", "report to update (the generated part only)")
	jsonOut := fl.String("json", "", "also write the raw results here")
	clients := fl.Int("clients", 16, "concurrent HTTP clients")
	dur := fl.Duration("duration", 10*time.Second, "HTTP load per endpoint")
	maxReq := fl.Int("max-requests", 200000, "HTTP requests per endpoint at most")
	rounds := fl.Int("rounds", 20, "passes over the query mix at most")
	classifies := fl.Int("classify", 1000, "classify calls at most")
	budget := fl.Duration("budget", 40*time.Second, "time for each in-process measurement (query mix, classify, baseline) per size")
	warm := fl.Int("warm-starts", 3, "warm starts per size (median reported)")
	cold := fl.Int("cold-starts", 3, "cold loads per size (median reported)")
	fromJSON := fl.String("from-json", "", "write the report from results saved with -json instead of measuring")
	serverEnv := fl.String("server-env", "", "extra environment of the server, space-separated (e.g. \"GOGC=400 GOMEMLIMIT=280MiB\")")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *fromJSON != "" {
		data, err := os.ReadFile(*fromJSON)
		if err != nil {
			return err
		}
		var rep bench.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %w", *fromJSON, err)
		}
		return bench.UpdateReport(*out, &rep)
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("bad size %q", s)
		}
		ns = append(ns, n)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(*work)
	}
	cfg := bench.Config{Sizes: ns, Seed: *seed, Work: *work, Server: *server, ServerEnv: strings.Fields(*serverEnv), Self: self, Library: *lib, Relevance: *rel,
		HTTP:   bench.LoadSpec{Clients: *clients, Duration: *dur, MaxRequests: *maxReq, Warmup: time.Second},
		Budget: bench.Budget{Rounds: *rounds, Classifies: *classifies, Time: *budget}, WarmStarts: max(*warm, 1), ColdStarts: max(*cold, 1), Log: stderr}
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		data, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, data, 0o644); err != nil {
			return err
		}
	}
	if err := bench.UpdateReport(*out, rep); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", *out, rep.Took.Round(time.Second))
	return nil
}

// runChild runs one in-process measurement and prints it as JSON.
func runChild(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	lib := fl.String("lib", "", "library folder")
	data := fl.String("data", "", "data folder")
	dir := fl.String("dir", "", "scratch folder")
	rel := fl.String("relevance", "", "relevance set")
	rounds := fl.Int("rounds", 20, "passes over the query mix at most")
	classifies := fl.Int("classify", 1000, "classify calls at most")
	budget := fl.Duration("budget", 40*time.Second, "time for each measurement")
	cpuProf := fl.String("cpuprofile", "", "child-phases, child-search: write a CPU profile (of the query mix for child-search)")
	heapProf := fl.String("memprofile", "", "child-phases: write a heap profile after the cold load")
	if err := fl.Parse(args); err != nil {
		return err
	}
	var v any
	var err error
	switch name {
	case "child-search":
		v, err = bench.MeasureSearch(ctx, *lib, *data, bench.Budget{Rounds: *rounds, Classifies: *classifies, Time: *budget}, bench.ProfileOptions{CPU: *cpuProf})
	case "child-phases":
		v, err = bench.MeasurePhases(ctx, *lib, *data, bench.ProfileOptions{CPU: *cpuProf, Heap: *heapProf})
	case "child-fts":
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return err
		}
		v, err = bench.MeasureFTS(ctx, *lib, *dir, bench.Budget{Rounds: *rounds, Time: *budget})
	case "child-relevance":
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return err
		}
		v, err = bench.MeasureRelevance(ctx, *lib, *rel, *dir)
	default:
		return fmt.Errorf("unknown command %q", name)
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(v)
}
