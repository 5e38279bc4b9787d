// Command loadtest is the hardening load test: the server on the shipped
// library, 64 concurrent clients for 30 s on each of the library page, the
// search page and /api/search, all on 127.0.0.1. It writes the figures into
// docs/performance.md between its own markers and fails on any error.
//
//	go build -o bin/casebook ./cmd/server && go run ./internal/bench/cmd/loadtest
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"casebook/internal/bench"
)

const (
	begin = "<!-- loadtest:begin (written by internal/bench/cmd/loadtest) -->"
	end   = "<!-- loadtest:end -->"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	server := flag.String("server", "bin/casebook", "casebook server binary")
	lib := flag.String("library", "library", "library folder")
	clients := flag.Int("clients", 64, "concurrent clients")
	dur := flag.Duration("duration", 30*time.Second, "load per endpoint")
	maxReq := flag.Int("max-requests", 2_000_000, "requests per endpoint at most")
	out := flag.String("out", "docs/performance.md", "report to update")
	flag.Parse()

	data, err := os.MkdirTemp("", "casebook-loadtest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	srv, err := bench.StartServer(ctx, *server, *lib, data, nil, 2*time.Minute)
	if err != nil {
		return err
	}
	defer srv.Stop()
	base := srv.Addr
	if !strings.HasPrefix(base, "http") {
		base = "http://" + base
	}
	endpoints := []struct {
		name  string
		paths []string
	}{
		{"library page", []string{"/", "/?component=gpu-driver", "/?cause_category=capacity&page=1", "/?symptom=pod-pending&sort=oldest"}},
		{"search page", []string{"/search?q=taint+toleration+GPU+mismatch", "/search?q=Failed+to+initialize+NVML", "/search?q=OOMKilled&kind=incident", "/search?q=%EB%85%B8%EB%93%9C+%EC%9E%90%EB%8F%99+%EB%B3%B5%EA%B5%AC"}},
		{"/api/search", []string{"/api/search?q=GPU+node+present+but+workload+not+scheduled", "/api/search?q=nvidia.com/gpu", "/api/search?q=coredns+ndots&limit=5", "/api/search?q=cuda+out+of+memry"}},
	}
	var runs []bench.HTTPRun
	failed := false
	for _, e := range endpoints {
		r, err := bench.Load(ctx, e.name, base, e.paths, bench.LoadSpec{Clients: *clients, Duration: *dur, MaxRequests: *maxReq, Warmup: 2 * time.Second})
		if err != nil {
			return err
		}
		fmt.Printf("%-14s %8.0f req/s  p50 %-10v p99 %-10v errors %d (%d requests)\n", e.name, r.RPS, r.Latency.P50, r.Latency.P99, r.Errors, r.Requests)
		runs = append(runs, r)
		failed = failed || r.Errors > 0
	}
	if err := writeReport(*out, runs, *clients, *dur); err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("the load test saw errors")
	}
	return nil
}

func writeReport(path string, runs []bench.HTTPRun, clients int, dur time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nThe shipped library, %d concurrent clients, %s per endpoint, zero errors required. ", begin, clients, dur)
	fmt.Fprintf(&b, "Measured %s on this machine (%d-core), server and load generator on 127.0.0.1 sharing the cores; `go run ./internal/bench/cmd/loadtest` reproduces it.\n\n",
		time.Now().UTC().Format("2006-01-02"), numCPU())
	b.WriteString("| endpoint | requests | errors | req/s | p50 | p99 | max | load avg |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %s | %d | %d | %.0f | %v | %v | %v | %.1f |\n", r.Name, r.Requests, r.Errors, r.RPS,
			r.Latency.P50.Round(10*time.Microsecond), r.Latency.P99.Round(10*time.Microsecond), r.Latency.Max.Round(100*time.Microsecond), r.LoadAvg)
	}
	b.WriteString(end + "\n")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	if i, j := strings.Index(s, begin), strings.Index(s, end); i >= 0 && j > i {
		s = s[:i] + b.String() + strings.TrimPrefix(s[j+len(end):], "\n")
	} else {
		if s == "" {
			s = "# Performance\n"
		}
		s = strings.TrimRight(s, "\n") + "\n\n## Load test (issue 7)\n\n" + b.String()
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

func numCPU() int { return runtime.NumCPU() }
