package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"casebook/internal/cluster"
	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/internal/inventory"
)

const gapsUsage = `Usage:
  casebook gaps [--kubeconfig K] [--context C] [--json] [--fail-on SEVERITY] [--save FILE]
  casebook gaps --snapshot FILE [--json] [--fail-on SEVERITY]

Reads the cluster read-only (see deploy/rbac-readonly.yaml) and runs every
gap check of the library: conditions that caused the public incidents in
the library, each finding linked to the incidents and playbooks behind it.
--save writes the inventory that was read as JSON; --snapshot checks such a
file instead of a cluster. With --fail-on, the exit status is 1 when a check
at or above that severity found something or could not tell (an error), so
it can gate a CI job or a CronJob.

Flags:
`

// runGaps implements "gaps".
func runGaps(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("gaps", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var opts cluster.Options
	var inv cluster.InventoryOptions
	var lim gaps.Limits
	var snapFile, save, libDir, allow, failOn, base string
	var asJSON bool
	fl.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	fl.StringVar(&opts.Context, "context", "", "kubeconfig context (default: the current one)")
	fl.StringVar(&allow, "namespaces", "", "comma-separated namespaces to read (default: all)")
	fl.StringVar(&inv.NodeSelector, "node-selector", "", "label selector limiting the nodes read, e.g. karpenter.sh/nodepool=gpu")
	fl.IntVar(&inv.MaxObjects, "max-objects", 5000, "objects read per kind; a check cut short that finds nothing reports an error")
	fl.DurationVar(&inv.Timeout, "timeout", 60*time.Second, "bound on reading the cluster")
	fl.DurationVar(&lim.CheckTimeout, "check-timeout", 5*time.Second, "bound on evaluating one check")
	fl.StringVar(&snapFile, "snapshot", "", "check an inventory file written by --save instead of a cluster")
	fl.StringVar(&save, "save", "", "also write the inventory that was read to this file as JSON")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.StringVar(&failOn, "fail-on", "", "exit 1 when a check of this severity or worse (critical, high, medium, low) finds something or errs")
	fl.StringVar(&base, "base-url", "", "portal URL to prefix incident and playbook links with, e.g. https://casebook.example.com")
	fl.StringVar(&libDir, "library", "", "library folder (default: the embedded library)")
	fl.Usage = func() { fmt.Fprint(stderr, gapsUsage); fl.PrintDefaults() }
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return exitCode(2)
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("gaps: unexpected argument %q", fl.Arg(0))
	}
	var gate gaps.Severity
	if failOn != "" {
		var err error
		if gate, err = gaps.ParseSeverity(failOn); err != nil {
			return fmt.Errorf("gaps: --fail-on: %w", err)
		}
	}
	opts.Namespaces = splitList(allow)
	set, err := loadChecks(libDir)
	if err != nil {
		return err
	}
	in, source, err := readInventory(ctx, opts, inv, snapFile)
	if err != nil {
		return err
	}
	if save != "" {
		if err := saveInventory(save, in); err != nil {
			return err
		}
	}
	rep := set.Run(ctx, in, lim)
	rep.Source = source
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := gaps.WriteText(stdout, rep, strings.TrimSuffix(base, "/")); err != nil {
		return err
	}
	if gate != 0 && rep.FailsAt(gate) {
		return exitCode(1)
	}
	return nil
}

// loadChecks loads and compiles the library's checks; a library whose
// checks have problems is refused, since a check left out would pass
// silently.
func loadChecks(dir string) (*gaps.Set, error) {
	layers, err := dirLayers(dir)
	if err != nil {
		return nil, err
	}
	set, problems := gaps.LoadLayers(layers)
	if len(problems) > 0 {
		return nil, fmt.Errorf("gaps: the library's checks have problems (run casebook lint), first: %s", problems[0])
	}
	return set, nil
}

func readInventory(ctx context.Context, opts cluster.Options, inv cluster.InventoryOptions, file string) (*inventory.Inventory, string, error) {
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, "", fmt.Errorf("gaps: %w", err)
		}
		defer f.Close()
		in, err := inventory.Decode(f)
		if err != nil {
			return nil, "", fmt.Errorf("gaps: %s: %w", file, err)
		}
		return in, file, nil
	}
	r, err := cluster.Connect(opts)
	if err != nil {
		return nil, "", err
	}
	in, err := r.Inventory(ctx, inv)
	if err != nil {
		return nil, "", fmt.Errorf("gaps: read the cluster: %w", err)
	}
	source := "the cluster"
	if opts.Context != "" {
		source = "context " + opts.Context
	}
	return in, source, nil
}

func saveInventory(path string, in *inventory.Inventory) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gaps: --save: %w", err)
	}
	if err := inventory.Encode(f, in); err != nil {
		f.Close()
		return fmt.Errorf("gaps: --save: %w", err)
	}
	return f.Close()
}

// gapsService gives the portal its gap checks: the library's checks, run
// against the cluster of live triage (through its reader, so with the same
// namespace allow-list), cached for a minute. Without a cluster /gaps
// explains how to run them and accepts an upload.
func gapsService(loader *content.Loader, r *cluster.Reader, seesRestricted bool) *gaps.Service {
	opts := gaps.ServiceOptions{Checks: currentChecks(loader, seesRestricted)}
	if r != nil {
		opts.Collect = func(ctx context.Context) (*inventory.Inventory, error) {
			return r.Inventory(ctx, cluster.InventoryOptions{Timeout: 30 * time.Second})
		}
	}
	return gaps.NewService(opts)
}

// currentChecks hands the gap service the checks of the loaded library,
// with or without the restricted layers.
func currentChecks(loader *content.Loader, seesRestricted bool) func() *gaps.Set {
	return func() *gaps.Set {
		if c := loader.CurrentFor(seesRestricted); c != nil {
			return c.Checks
		}
		return nil
	}
}
