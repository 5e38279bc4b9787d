// Command drillstage stages a drill's failure on the kube API-server
// harness (test/kubeharness), so that "casebook drill record" can record it
// with the live reader: real objects, real admission, the real scheduler's
// events and, with --with-controllers, the real workload and quota
// controllers; for what a kubelet and a container runtime would write
// (node status, container states, kubelet events, container logs), the
// scenario's own values written through the same API a kubelet uses.
//
//	go run ./test/drillstage --kubeconfig K --scenario test/drillstage/scenarios/ID.yaml --ready DIR/staged
//
// It applies the scenario, waits until the scheduler has spoken about every
// pod it had to place, writes the ready file (namespace, target and route,
// one per line) and then serves the scenario's container logs as a
// kubelet would until it is interrupted: the API server proxies
// "kubectl logs" (and the reader's log reads) to it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"casebook/test/drillstage/stage"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig of a harness (scripts/kubeharness.sh start prints it)")
	scenario := flag.String("scenario", "", "scenario file (test/drillstage/scenarios/ID.yaml)")
	ready := flag.String("ready", "", "write namespace, target and route to this file once staged")
	timeout := flag.Duration("timeout", 3*time.Minute, "bound on staging")
	flag.Parse()
	if *kubeconfig == "" || *scenario == "" {
		fmt.Fprintln(os.Stderr, "usage: drillstage --kubeconfig K --scenario FILE [--ready FILE]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *scenario, *ready, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "drillstage:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, path, ready string, timeout time.Duration) error {
	sc, err := stage.Read(path, time.Now())
	if err != nil {
		return err
	}
	if sc.StageTimeout != "" {
		d, err := time.ParseDuration(sc.StageTimeout)
		if err != nil {
			return fmt.Errorf("%s: stageTimeout: %w", path, err)
		}
		timeout = max(timeout, d)
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	staged, err := stage.Stage(sctx, kubeconfig, sc)
	cancel()
	if err != nil {
		return err
	}
	defer staged.Close()
	fmt.Fprintf(os.Stderr, "drillstage: %s staged in namespace %s; target %s\n", sc.Drill, sc.Namespace, sc.Target)
	if ready != "" {
		if err := os.WriteFile(ready, fmt.Appendf(nil, "%s\n%s\n%s\n", sc.Namespace, sc.Target, sc.Route), 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}
