package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"casebook/internal/draft"
	"casebook/internal/library"
	"casebook/internal/triage"
)

const newUsage = `Usage: casebook new incident --layer DIR [--title TITLE] [--route ROUTE]

Writes a new incident file into the layer's incidents folder, numbered with
the layer's next free id (ACME-0008 for a layer with prefix ACME; IL- for
the public library), with every required field and section. What only a
person can write is marked TODO; "casebook lint" lists each TODO until
none is left. --route fills in the triage route, its playbook and the terms
its incidents share. Nothing is opened; the file's path and the git commands
to add it are printed.

`

// runNew scaffolds a library entry: "casebook new incident --layer DIR".
func runNew(_ context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	if len(args) == 0 || args[0] != "incident" {
		fmt.Fprint(stderr, newUsage)
		return exitCode(2)
	}
	fl := flag.NewFlagSet("new incident", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("layer", "", "the layer's folder (holding layer.yaml, or taxonomy.yaml for the public library)")
	title := fl.String("title", "", "the incident's title (else a TODO)")
	route := fl.String("route", "", "the triage route the incident showed, e.g. gpu/driver")
	fl.Usage = func() { fmt.Fprint(stderr, newUsage); fl.PrintDefaults() }
	if err := fl.Parse(args[1:]); err != nil {
		return exitCode(2)
	}
	if *dir == "" || fl.NArg() > 0 {
		fl.Usage()
		return exitCode(2)
	}
	info, _, err := library.ReadLayerInfo(os.DirFS(*dir))
	if errors.Is(err, library.ErrNoLayer) {
		return fmt.Errorf("new: %s is not a library folder: a team's layer holds layer.yaml (name, prefix), the public library taxonomy.yaml", *dir)
	}
	if err != nil {
		return fmt.Errorf("new: %s: %w", filepath.Join(*dir, library.LayerFile), err)
	}
	names, _ := fs.Glob(os.DirFS(*dir), "incidents/*.md")
	in := draft.Input{Layer: info, ID: draft.NextID(info, names), Today: now().UTC(), Title: *title}
	if *route != "" {
		if err := fillRoute(&in, *dir, *route); err != nil {
			return err
		}
	}
	p := filepath.Join(*dir, filepath.FromSlash(draft.Path(in)))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("new: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("new: %w", err) // never overwrite a file
	}
	_, err = f.WriteString(draft.Markdown(in))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s, layer %s)\n\nIn %s:\n", p, in.ID, info.Name, *dir)
	for _, c := range draft.Commands(in, "") {
		fmt.Fprintln(stdout, "  "+c)
	}
	return nil
}

// fillRoute gives the draft the route's outcome, its playbook and the terms
// the route's incidents share, from the library the layer is stacked on.
func fillRoute(in *draft.Input, dir, route string) error {
	layers, err := dirLayers(dir)
	if err != nil {
		return err
	}
	cat, _ := triage.LoadLayers(layers)
	n, ok := cat.Route(route)
	if !ok {
		return fmt.Errorf("new: no triage route %q%s", route, didYouMeanRoute(route, cat.RouteIDs()))
	}
	lib, _, err := library.NewStack(layers...).Load()
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	in.Outcome, in.Taxonomy = n.Outcome, lib.Taxonomy
	in.Playbook, _ = lib.Playbook(n.Outcome.Playbook)
	var comps, syms [][]string
	for _, x := range lib.Incidents {
		if slices.Contains(x.Routes, route) {
			comps, syms = append(comps, x.Components), append(syms, x.Symptoms)
		}
	}
	in.Components, in.Symptoms = draft.Common(comps, 3), draft.Common(syms, 2)
	return nil
}

func didYouMeanRoute(s string, valid []string) string {
	if n := library.Nearest(s, valid); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}
