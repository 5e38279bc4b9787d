package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"casebook/internal/access"
	"casebook/internal/cluster"
	"casebook/internal/live"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

const triageLiveUsage = `Usage:
  casebook triage [--kubeconfig K] [--context C] -n NS POD|KIND/NAME
  casebook triage [--kubeconfig K] [--context C] --scan -n NS
  casebook triage --snapshot FILE

Reads the cluster read-only (see deploy/rbac-readonly.yaml), answers every
triage question it can with the evidence it found, and prints the route,
the diagnosis and the evidence, or the question you still have to answer.
KIND is deployment, replicaset, statefulset, job or cronjob (also when no
pod exists: an exceeded quota, a refusing webhook), or service, ingress,
hpa or pvc. --save writes what was read as JSON, which
--snapshot triages later on a machine without cluster access.

Flags:
`

// runTriageLive implements "triage" against a live cluster or a snapshot
// file. Collection problems (a forbidden read, a timeout) are not errors:
// they turn into questions for the person, listed at the end.
func runTriageLive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("triage", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var opts cluster.Options
	var ns, snapFile, save, libDir, allow string
	var scan, asJSON bool
	fl.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	fl.StringVar(&opts.Context, "context", "", "kubeconfig context (default: the current one)")
	fl.StringVar(&ns, "n", "", "namespace")
	fl.StringVar(&ns, "namespace", "", "namespace")
	fl.BoolVar(&scan, "scan", false, "triage every troubled pod, workload, Service, Ingress, HPA and claim of the namespace")
	fl.StringVar(&snapFile, "snapshot", "", "triage a snapshot file written by --save instead of a cluster")
	fl.StringVar(&save, "save", "", "also write what was read to this file as JSON")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.BoolVar(&opts.ReadLogs, "read-logs", false, "read previous container logs (needs get pods/log)")
	fl.StringVar(&allow, "namespaces", "", "comma-separated namespaces that may be triaged (default: any)")
	fl.DurationVar(&opts.CollectTimeout, "timeout", 30*time.Second, "bound on reading the cluster for one triage")
	fl.StringVar(&libDir, "library", "", "library folder (default: the embedded library)")
	fl.Usage = func() { fmt.Fprint(stderr, triageLiveUsage); fl.PrintDefaults() }

	rest, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	opts.Namespaces = splitList(allow)

	cat, err := loadCatalog(libDir)
	if err != nil {
		return err
	}
	snaps, err := collectForTriage(ctx, opts, ns, rest, scan, snapFile)
	if err != nil {
		return err
	}
	if save != "" {
		if err := saveSnapshots(save, ns, snaps, scan); err != nil {
			return err
		}
	}
	var reports []*probe.Report
	for i := range snaps {
		rep, err := probe.Triage(cat, &snaps[i])
		if err != nil {
			return fmt.Errorf("triage: %w", err)
		}
		reports = append(reports, rep)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if scan {
			return enc.Encode(map[string]any{"namespace": ns, "reports": reports})
		}
		return enc.Encode(reports[0])
	}
	if scan && len(reports) == 0 {
		fmt.Fprintf(stdout, "Nothing troubled in namespace %s.\n", ns)
	}
	for i, rep := range reports {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		printReport(stdout, rep)
	}
	return nil
}

func loadCatalog(dir string) (*triage.Catalog, error) {
	layers, err := dirLayers(dir)
	if err != nil {
		return nil, err
	}
	cat, problems := triage.LoadLayers(layers)
	if cat.Root() == nil {
		if len(problems) > 0 {
			return nil, fmt.Errorf("triage: library has problems, first: %s", problems[0])
		}
		return nil, errors.New("triage: the library has no triage trees")
	}
	return cat, nil
}

// collectForTriage returns the snapshots to triage: from a file, a scan,
// or one target.
func collectForTriage(ctx context.Context, opts cluster.Options, ns string, rest []string, scan bool, file string) ([]snapshot.Snapshot, error) {
	if file != "" {
		if len(rest) > 0 || scan {
			return nil, errors.New("triage: --snapshot takes no pod and no --scan")
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("triage: %w", err)
		}
		defer f.Close()
		snaps, err := cluster.LoadSnapshot(f)
		if err != nil {
			return nil, fmt.Errorf("triage: %s: %w", file, err)
		}
		return snaps, nil
	}
	switch {
	case ns == "":
		return nil, errors.New("triage: -n NAMESPACE is required")
	case scan && len(rest) > 0:
		return nil, errors.New("triage: --scan takes no pod name")
	case !scan && len(rest) != 1:
		return nil, errors.New("triage: name one pod (or KIND/NAME), or use --scan")
	}
	r, err := cluster.Connect(opts)
	if err != nil {
		return nil, err
	}
	// The same live-triage service as the portal and the MCP tools, so a
	// refusal reads the same; the person runs it on their own kubeconfig,
	// so no access policy and no limiter.
	svc := live.New(live.Options{Reader: r, Namespaces: opts.Namespaces, Timeout: opts.CollectTimeout})
	me := access.Caller{Addr: "cli"}
	if scan {
		sc, err := svc.Scan(ctx, me, ns)
		if err != nil {
			return nil, fmt.Errorf("triage: %w", err)
		}
		return sc.Snapshots, nil
	}
	s, err := svc.Collect(ctx, me, ns, rest[0])
	if err != nil {
		return nil, fmt.Errorf("triage: %w", err)
	}
	return []snapshot.Snapshot{*s}, nil
}

func saveSnapshots(path, ns string, snaps []snapshot.Snapshot, scan bool) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("triage: --save: %w", err)
	}
	var v any = &snaps[0]
	if scan || len(snaps) != 1 {
		v = &snapshot.Scan{Version: snapshot.Version, CollectedAt: time.Now().UTC(), Namespace: ns, Snapshots: snaps}
	}
	if err := snapshot.Encode(f, v); err != nil {
		f.Close()
		return fmt.Errorf("triage: --save: %w", err)
	}
	return f.Close()
}

// printReport writes one report for a terminal: the outcome first, then the
// answers with their evidence, then what could not be read.
func printReport(w io.Writer, r *probe.Report) {
	fmt.Fprintf(w, "%s\n", r.Target)
	if r.Route != "" {
		fmt.Fprintf(w, "route:     %s\n", r.Route)
		fmt.Fprintf(w, "playbook:  %s#%s\n", r.Playbook, r.Section)
		fmt.Fprintf(w, "diagnosis: %s\n", r.Diagnosis)
	} else if r.Ask != nil {
		fmt.Fprintf(w, "route:     not decided; the cluster cannot answer the next question\n")
	}
	if len(r.Steps) > 0 {
		fmt.Fprintln(w, "evidence:")
	}
	for _, st := range r.Steps {
		fmt.Fprintf(w, "  %s\n    -> %s", st.Text, st.Label)
		if st.Probe != "" {
			fmt.Fprintf(w, "  [%s]", st.Probe)
		}
		fmt.Fprintln(w)
		for _, e := range st.Evidence {
			fmt.Fprintf(w, "       %s\n", e)
		}
	}
	if a := r.Ask; a != nil {
		fmt.Fprintf(w, "answer yourself: %s\n", a.Text)
		if a.Why != "" {
			fmt.Fprintf(w, "  why not read:  %s\n", a.Why)
		}
		if a.Command != "" {
			fmt.Fprintf(w, "  check with:    %s\n", a.Command)
		}
		for _, c := range a.Choices {
			fmt.Fprintf(w, "    - %s\n", c)
		}
		fmt.Fprintf(w, "  continue in the wizard: /triage?tree=%s&a=%s\n", r.Tree, r.State)
	}
	if len(r.ReadErrors) > 0 {
		fmt.Fprintln(w, "could not read:")
		for _, e := range r.ReadErrors {
			fmt.Fprintf(w, "  - %s (%s): needs %s\n", e.What, e.Kind, e.Permission)
		}
	}
}
