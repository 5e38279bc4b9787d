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
	"path/filepath"

	"casebook/internal/answer"
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/search"
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
func runClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, cat *triage.Catalog, open openSearch) error {
	fl := flag.NewFlagSet("triage classify", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, classifyUsage) }
	asJSON := fl.Bool("json", false, "print JSON as the API returns it")
	// Flags may come before or after the file name.
	files, err := parseInterspersed(fl, args)
	if err != nil {
		return err
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

	var srch answer.Searcher
	if open != nil {
		ix, closeIx, err := open()
		if err != nil {
			fmt.Fprintf(stderr, "casebook: no related incidents (the search index could not be opened: %v)\n", err)
		} else {
			defer closeIx()
			srch = ix
		}
	}
	res, err := answer.Paste(ctx, cat, srch, string(text), i18n.EN)
	if err != nil {
		fmt.Fprintf(stderr, "casebook: %v\n", err)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	if res.Searched != "" && res.Match == triage.MatchNone {
		// Prose the classifier knows nothing in: the answer is the
		// search of its words, as the paste box shows it.
		fmt.Fprintf(stdout, "The text reads as a description, not an error message; the library searched for %q:\n", res.Searched)
		printRelated(stdout, res.Related)
	} else {
		printRoutes(stdout, res.Result)
	}
	if res.Redacted > 0 {
		fmt.Fprintf(stdout, "\n%d secret(s) in the text were replaced by %s before it was read.\n", res.Redacted, answer.Mark)
	}
	return nil
}

// openSearch opens the search index the related entries come from; the
// returned func closes it.
type openSearch func() (answer.Searcher, func(), error)

// relatedSearch opens (building once, then reusing) a search index of the
// library in the user's cache folder (CASEBOOK_DATA overrides it), keyed by
// the library's content hash like the server's.
func relatedSearch(dir string, getenv func(string) string) openSearch {
	return func() (answer.Searcher, func(), error) {
		layers, err := dirLayers(dir)
		if err != nil {
			return nil, nil, err
		}
		lib, _, err := library.NewStack(layers...).Load()
		if err != nil {
			return nil, nil, err
		}
		data := getenv("CASEBOOK_DATA")
		if data == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				return nil, nil, err
			}
			data = filepath.Join(cache, "casebook")
		}
		ix, err := search.Open(data, lib)
		if err != nil {
			return nil, nil, err
		}
		return ix, func() { _ = ix.Close() }, nil
	}
}

// printRoutes writes one block per route: the route, its confidence and
// playbook section, then the evidence lines with their numbers.
func printRoutes(w io.Writer, res triage.Result) {
	defer printRelated(w, res.Related)
	switch res.Match {
	case triage.MatchNone:
		fmt.Fprintln(w, "No known signal in the text; no route. Pick the symptom in the wizard (casebook serve, /triage).")
		return
	case triage.MatchWeak:
		fmt.Fprintln(w, "Nothing matched with confidence; the closest routes, from weak evidence:")
		fmt.Fprintln(w)
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

// printRelated lists the library entries found with the paste's lines.
func printRelated(w io.Writer, rel []triage.Related) {
	if len(rel) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "In the library:")
	for _, r := range rel {
		fmt.Fprintf(w, "  %-8s %-32s %s\n", r.Kind, r.URL, r.Title)
	}
}
