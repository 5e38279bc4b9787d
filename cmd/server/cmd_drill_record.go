package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"casebook/internal/cluster"
	"casebook/internal/drill"
	"casebook/internal/kubectl"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

var drillID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*[a-z0-9]$`)

// runDrillRecord reads one pod or workload read-only, as live triage does
// (with its logs), and writes the recording and, when the drill does not
// exist yet, a skeleton whose evidence lines are those live triage found.
func runDrillRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("drill record", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var opts cluster.Options
	var ns, route, id, dir, libDir string
	fl.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	fl.StringVar(&opts.Context, "context", "", "kubeconfig context (default: the current one)")
	fl.StringVar(&ns, "n", "", "namespace")
	fl.StringVar(&ns, "namespace", "", "namespace")
	fl.StringVar(&route, "route", "", "the triage route the failure belongs to (required)")
	fl.StringVar(&id, "id", "", "drill id (default: the pod or workload name)")
	fl.StringVar(&dir, "dir", "library/drills", "folder to write ID.snapshot.json and ID.yaml into")
	fl.StringVar(&libDir, "library", "", "library folder whose triage trees check the route (default: the embedded library)")
	fl.DurationVar(&opts.CollectTimeout, "timeout", 30*time.Second, "bound on reading the cluster")
	fl.Usage = func() { fmt.Fprint(stderr, drillUsage); fl.PrintDefaults() }
	var rest []string
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
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
	switch {
	case ns == "":
		return errors.New("drill record: -n NAMESPACE is required")
	case len(rest) != 1:
		return errors.New("drill record: name one pod (or KIND/NAME)")
	case route == "":
		return errors.New("drill record: --route is required: the route the staged failure belongs to")
	}
	if id == "" {
		_, name, _ := strings.Cut(rest[0], "/")
		if name == "" {
			name = rest[0]
		}
		id = name
	}
	if !drillID.MatchString(id) {
		return fmt.Errorf("drill record: id %q: use lower-case letters, digits and dashes", id)
	}
	cat, err := loadCatalog(libDir)
	if err != nil {
		return err
	}
	if _, ok := cat.Route(route); !ok {
		return fmt.Errorf("drill record: %q is not a triage route (casebook drill run lists them when you answer)", route)
	}
	opts.ReadLogs = true
	r, err := cluster.Connect(opts)
	if err != nil {
		return err
	}
	s, err := r.Collect(ctx, ns, rest[0])
	if err != nil {
		return err
	}
	for _, e := range s.ReadErrors {
		fmt.Fprintf(stderr, "drill record: could not %s (%s): needs %s\n", e.What, e.Kind, e.Permission)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	snapPath := filepath.Join(dir, id+drill.SnapshotSuffix)
	if err := writeSnapshotFile(snapPath, s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", snapPath)
	rep, err := probe.Triage(cat, s)
	if err != nil {
		return err
	}
	switch {
	case rep.Route == route:
		fmt.Fprintf(stdout, "live triage routes the recording to %s, as expected\n", route)
	case rep.Route != "":
		fmt.Fprintf(stdout, "warning: live triage routes the recording to %s, not %s: check the staging, or report the probes\n", rep.Route, route)
	case rep.Ask != nil:
		fmt.Fprintf(stdout, "live triage stops at question %q (%s); if no recording can answer it, give the answer in the drill's answers:\n", rep.Ask.Question, rep.Ask.Text)
	}
	yamlPath := filepath.Join(dir, id+".yaml")
	if _, err := os.Stat(yamlPath); err == nil {
		fmt.Fprintf(stdout, "kept %s (it exists); run casebook lint to check its evidence against the new recording\n", yamlPath)
		return nil
	}
	if err := os.WriteFile(yamlPath, []byte(drillSkeleton(id, route, s, rep, cat)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: fill in the TODOs (titles, incidents, starting symptom, recovery), then run casebook lint\n", yamlPath)
	return nil
}

func writeSnapshotFile(path string, s *snapshot.Snapshot) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := snapshot.Encode(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// drillSkeleton writes a drill file to fill in: the route, and as key
// evidence each fact live triage found, placed under the first command
// whose output shows it.
func drillSkeleton(id, route string, s *snapshot.Snapshot, rep *probe.Report, cat *triage.Catalog) string {
	var b strings.Builder
	q := func(v string) string { return fmt.Sprintf("%q", v) }
	fmt.Fprintf(&b, "id: %s\ntitle: TODO a title that names the symptom, not the cause\ntitle_ko: TODO\ndifficulty: medium\n", id)
	fmt.Fprintf(&b, "incidents: []  # TODO the library incidents this failure is modelled on\nroute: %s\n", route)
	fmt.Fprintf(&b, "start:\n  kind: alert  # alert, message or ticket\n  from: TODO\n  text: TODO what the on-call person sees first\n  text_ko: TODO\n")
	fmt.Fprintf(&b, "evidence:\n")
	n := 0
	for _, st := range rep.Steps {
		for _, e := range st.Evidence {
			cmd, line := findEvidence(s, e)
			if cmd == "" {
				continue
			}
			fmt.Fprintf(&b, "  - command: %s\n    line: %s\n    why: TODO what this tells the person (%s)\n    why_ko: TODO\n", cmd, q(line), st.Text)
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(&b, "  - command: describe pod %s\n    line: TODO a line of its output\n    why: TODO\n    why_ko: TODO\n", s.Target.Name)
	}
	fmt.Fprintf(&b, "hints:\n  - text: TODO the first command worth running\n    text_ko: TODO\n")
	fmt.Fprintf(&b, "recovery: TODO the recovery direction in a few sentences\nrecovery_ko: TODO\n")
	fmt.Fprintf(&b, "teaches: TODO what the drill teaches\nteaches_ko: TODO\n")
	return b.String()
}

// findEvidence finds the first command whose output shows a probe's
// evidence, and the part of it to quote.
func findEvidence(s *snapshot.Snapshot, e probe.Evidence) (cmd, line string) {
	var want []string
	if m := firstLine(e.Message); len(m) >= 8 {
		want = append(want, m)
	}
	if len(e.Value) >= 4 {
		want = append(want, e.Value)
	}
	cmds := []string{"describe pod " + s.Target.Name, "get events", "get pods -o wide"}
	if s.Pod == nil {
		cmds = []string{"describe " + strings.ToLower(s.Target.Kind) + " " + s.Target.Name, "get events", "describe resourcequota"}
	}
	for _, n := range s.Nodes {
		cmds = append(cmds, "describe node "+n.Name)
	}
	for _, ds := range s.DaemonSets {
		cmds = append(cmds, "get pods -n "+ds.Namespace+" -o wide")
	}
	for _, l := range s.Logs {
		c := "logs " + l.Pod
		if l.Container != "" {
			c += " -c " + l.Container
		}
		if l.Previous {
			c += " --previous"
		}
		cmds = append(cmds, c)
	}
	for _, w := range want {
		for _, c := range cmds {
			cmdParsed, out, err := kubectl.Exec(s, c)
			if err == nil && strings.Contains(out, w) {
				return cmdParsed.Key(), w
			}
		}
	}
	return "", ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
