package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"casebook/internal/content"
	"casebook/internal/library"
)

// runLint prints every problem of a library, one "path:line: message" per
// line, and exits 1 when there is any, so it can gate a CI job. Given
// several folders it lints them as the server would stack them, so a team's
// CI catches a term that redefines a public one or an id two layers share.
func runLint(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("lint", flag.ContinueOnError)
	fl.SetOutput(stderr)
	noEmbedded := fl.Bool("no-embedded", false, "leave the embedded public library out: the first DIR is the bottom layer")
	layerFileMB := fl.Int("layer-file-mb", library.DefaultMaxFile>>20, "largest file of a DIR read, in MiB, as the server's --layer-file-mb")
	fl.Usage = func() {
		fmt.Fprint(stderr, `Usage: casebook lint [--no-embedded] [DIR...]

Without DIR, the embedded public library. A DIR with layer.yaml is a team's
layer, linted on top of the embedded public library (and of the DIRs before
it); a DIR without layer.yaml is a whole public library. Paths are printed
under each DIR when there are several layers.

`)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitCode(2)
	}
	layers, err := libraryLayers(fl.Args(), *noEmbedded, int64(max(0, *layerFileMB))<<20)
	if err != nil {
		return fmt.Errorf("lint: %w", err)
	}
	problems, err := content.LintStack(library.NewStack(layers...))
	todo := 0
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
		if p.Todo {
			todo++
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "lint:", err)
		return exitCode(1)
	}
	if len(problems) > 0 {
		msg := fmt.Sprintf("lint: %d problems", len(problems))
		if todo > 0 {
			msg += fmt.Sprintf(", %d of them TODO placeholders of a draft, left for a person to fill in", todo)
		}
		fmt.Fprintln(stderr, msg)
		return exitCode(1)
	}
	return nil
}
