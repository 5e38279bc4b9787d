// Command libgen writes a synthetic incident library of any size for the
// benchmarks: N generated incidents that follow the shipped library's
// statistics (terms per facet, section lengths, vocabulary), with the
// shipped taxonomy, playbooks and triage trees beside them. The output is
// deterministic for a seed and passes "casebook lint". It is test data, not
// content: never commit it to library/.
//
//	go run ./cmd/libgen -n 10000 -seed 1 -out /tmp/lib10k
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	deflib "casebook/library"

	"casebook/internal/bench/corpus"
	"casebook/internal/library"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "libgen:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("libgen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	n := fl.Int("n", 1000, "number of incidents (1 to 999999)")
	seed := fl.Uint64("seed", 1, "random seed; the same seed and -n give the same files")
	out := fl.String("out", "", "library folder to write (its incidents/ must be absent or empty)")
	from := fl.String("from", "", "library folder to measure and copy taxonomy, playbooks and triage from (default: the embedded library)")
	force := fl.Bool("force", false, "delete OUT/incidents first")
	workers := fl.Int("workers", runtime.NumCPU(), "files written in parallel (does not change the output)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *out == "" || fl.NArg() > 0 {
		fl.Usage()
		return fmt.Errorf("want -out DIR and no arguments")
	}
	var src fs.FS = deflib.FS
	if *from != "" {
		src = os.DirFS(*from)
	}
	lib, _, err := library.Load(src)
	if err != nil {
		return err
	}
	if *force {
		if err := os.RemoveAll(filepath.Join(*out, "incidents")); err != nil {
			return err
		}
	}
	start := time.Now()
	st := corpus.Measure(lib)
	if err := corpus.Generate(*out, src, st, corpus.Options{N: *n, Seed: *seed, Workers: *workers}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d incidents modelled on %d to %s in %s\n", *n, len(lib.Incidents), *out,
		time.Since(start).Round(time.Millisecond))
	return nil
}
