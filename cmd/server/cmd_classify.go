package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"casebook/internal/triage"
)

const classifyUsage = `Usage: casebook triage classify [FILE] [--json]

Reads FILE (or standard input when FILE is missing or "-"): any pasted text
such as kubectl describe output, events, logs or an alert. Prints the routes
its messages point to, best first, with the playbook section and the lines
that matched; --json prints what POST /api/triage/classify returns.
`

// runClassify implements "triage classify": the paste box of the wizard on
// the command line, for terminals and scripts. Nothing matched is printed as
// such and is not an error; the input limits are the API's (1 MiB, not
// empty).
func runClassify(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, cat *triage.Catalog) error {
	fl := flag.NewFlagSet("triage classify", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, classifyUsage) }
	asJSON := fl.Bool("json", false, "print JSON as the API returns it")
	// Flags may come before or after the file name.
	var files []string
	for {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return errHelp
			}
			return exitCode(2)
		}
		if fl.NArg() == 0 {
			break
		}
		files = append(files, fl.Arg(0))
		args = fl.Args()[1:]
	}
	if len(files) > 1 {
		fmt.Fprint(stderr, classifyUsage)
		return exitCode(2)
	}
	if cat == nil {
		return errors.New("triage classify: no triage catalogue loaded")
	}

	in := stdin
	if len(files) == 1 && files[0] != "-" {
		f, err := os.Open(files[0])
		if err != nil {
			return fmt.Errorf("triage classify: %w", err)
		}
		defer f.Close()
		in = f
	}
	text, err := io.ReadAll(io.LimitReader(in, triage.MaxInput+1))
	if err != nil {
		return fmt.Errorf("triage classify: read: %w", err)
	}
	switch {
	case len(text) > triage.MaxInput:
		return fmt.Errorf("triage classify: input is larger than %d bytes", triage.MaxInput)
	case len(bytes.TrimSpace(text)) == 0:
		return errors.New("triage classify: nothing to classify (empty input)")
	}

	res := cat.Classify(string(text))
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	printRoutes(stdout, res)
	return nil
}

// printRoutes writes one block per route: the route, its confidence and
// playbook section, then the evidence lines with their numbers.
func printRoutes(w io.Writer, res triage.Result) {
	if len(res.Routes) == 0 {
		fmt.Fprintln(w, "No known signal in the text; no route.")
		return
	}
	for i, r := range res.Routes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%-32s %.2f  %s#%s\n", r.Route, r.Confidence, r.Playbook, r.Section)
		for _, e := range r.Evidence {
			fmt.Fprintf(w, "  line %d [%s] %s\n", e.LineNo, e.Signal, e.Text)
		}
	}
}
