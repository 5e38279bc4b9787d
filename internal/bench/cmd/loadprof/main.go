// Command loadprof runs the server's load pipeline (content.Loader) on a
// library folder, cold then warm, and writes CPU and heap profiles of each:
// the profile behind the cold-load and warm-start figures of
// docs/performance.md.
//
//	go run ./internal/bench/cmd/loadprof -library DIR -data EMPTY -cpuprofile cold.pprof
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"casebook/internal/bench"
	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/search"
)

func main() {
	libDir := flag.String("library", "", "library folder (a whole public library)")
	dataDir := flag.String("data", "", "data folder (empty for a cold load)")
	cpuProf := flag.String("cpuprofile", "", "write the CPU profile of the load here")
	heapProf := flag.String("heapprofile", "", "write a heap profile (after a GC) here once loaded")
	allocProf := flag.String("allocprofile", "", "write the allocation profile of the load here")
	peakProf := flag.String("peakprofile", "", "write a heap profile here whenever the live heap reaches a new peak during the load")
	flag.Parse()
	if *peakProf != "" {
		go watchPeak(*peakProf)
	}
	if *libDir == "" || *dataDir == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*libDir, *dataDir, *cpuProf, *heapProf, *allocProf); err != nil {
		fmt.Fprintln(os.Stderr, "loadprof:", err)
		os.Exit(1)
	}
}

func run(libDir, dataDir, cpuProf, heapProf, allocProf string) error {
	if allocProf != "" {
		runtime.MemProfileRate = 64 << 10
	}
	if cpuProf != "" {
		f, err := os.Create(cpuProf)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// As the server stacks a --library folder: with its path, which the
	// hash cache of a warm start needs.
	abs, err := filepath.Abs(libDir)
	if err != nil {
		return err
	}
	loader := content.NewStackLoader(library.NewStack(library.Layer{FS: os.DirFS(libDir), Dir: abs}), dataDir, log)
	loader.Search = search.Options{CacheBytes: 32 << 20}
	t, c := time.Now(), bench.CPUTime()
	lc, err := loader.Load(context.Background())
	if err != nil {
		return err
	}
	wall, cpu := time.Since(t), bench.CPUTime()-c
	if allocProf != "" {
		if err := writeProfile("allocs", allocProf); err != nil {
			return err
		}
	}
	m, _ := bench.ReadMem(0)
	fmt.Printf("loaded %d incidents, warm=%v: wall %s, CPU %s, mem %+v, load %s\n", lc.Incidents, lc.Warm, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), m, loadavg())
	if heapProf != "" {
		runtime.GC()
		if err := writeProfile("heap", heapProf); err != nil {
			return err
		}
	}
	loader.Close()
	return nil
}

// watchPeak writes the heap profile each time the live heap (as of the
// latest GC) passes its peak by 8 MiB: the profile shows what the load
// holds at its largest.
func watchPeak(path string) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	for range time.Tick(50 * time.Millisecond) {
		metrics.Read(sample)
		if live := sample[0].Value.Uint64(); live > peak+8<<20 {
			peak = live
			if err := writeProfile("heap", path); err != nil {
				fmt.Fprintln(os.Stderr, "loadprof:", err)
				return
			}
		}
	}
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup(name).WriteTo(f, 0)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if len(b) > 14 {
		return string(b[:14])
	}
	return string(b)
}
