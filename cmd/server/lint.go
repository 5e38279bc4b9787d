package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"casebook/internal/content"
	deflib "casebook/library"
)

// runLint prints every problem of a library folder, one "path:line: message"
// per line, and exits 1 when there is any, so it can gate a CI job.
func runLint(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("lint", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: casebook lint [DIR]\n\nDIR is a library folder (the one holding taxonomy.yaml); without it, the embedded library.")
	}
	if err := fl.Parse(args); err != nil {
		return exitCode(2)
	}
	var fsys fs.FS = deflib.FS
	if fl.NArg() > 0 {
		dir := fl.Arg(0)
		if _, err := os.Stat(dir + "/taxonomy.yaml"); err != nil {
			return fmt.Errorf("lint: %s is not a library folder (no taxonomy.yaml)", dir)
		}
		fsys = os.DirFS(dir)
	}
	problems, err := content.Lint(fsys)
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "lint:", err)
		return exitCode(1)
	}
	if len(problems) > 0 {
		return exitCode(1)
	}
	return nil
}
