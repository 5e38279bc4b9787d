// Command kubeharness runs a real, single-process Kubernetes control plane
// (embedded etcd, kube-apiserver and kube-scheduler, no kubelet; with
// --with-controllers also kube-controller-manager, so workloads create their
// pods) so that Casebook's cluster reader is tested against the same API
// server, admission, scheduler and controller messages that operators see.
//
// It writes DIR/admin.kubeconfig, DIR/audit.log and, once everything answers,
// DIR/ready; it runs until it gets SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	dir := flag.String("dir", "", "state directory (etcd data, certificates, kubeconfig, ready file); required")
	withControllers := flag.Bool("with-controllers", false, "also run kube-controller-manager (see --controllers)")
	controllers := flag.String("controllers", DefaultControllers, "the controllers kube-controller-manager runs with --with-controllers")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "kubeharness: --dir is required")
		os.Exit(2)
	}
	// Our own signal context: the upstream commands each install a global
	// signal handler, and a second one panics, so neither command is used.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cm := ""
	if *withControllers {
		cm = *controllers
	}
	if err := run(ctx, *dir, cm); err != nil {
		fmt.Fprintln(os.Stderr, "kubeharness:", err)
		os.Exit(1)
	}
}

// run starts the control plane in dir; controllers, when not empty, is the
// --controllers list of a kube-controller-manager started beside it.
func run(ctx context.Context, dir, controllers string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// A ready file left by an earlier run would make a waiting script believe
	// this run is up before it is.
	ready := filepath.Join(dir, "ready")
	_ = os.Remove(ready)

	etcdURL, stopEtcd, err := startEtcd(ctx, filepath.Join(dir, "etcd"))
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer stopEtcd()

	api, err := startAPIServer(ctx, dir, etcdURL)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(kubeconfig, api.url, api.caFile, api.adminToken); err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = waitHealthy(waitCtx, kubeconfig, api.errs)
	cancel()
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}

	schedErrs, err := startScheduler(ctx, kubeconfig)
	if err != nil {
		return fmt.Errorf("kube-scheduler: %w", err)
	}

	var cmErrs <-chan error
	if controllers != "" {
		if cmErrs, err = startControllerManager(ctx, kubeconfig, controllers); err != nil {
			return fmt.Errorf("kube-controller-manager: %w", err)
		}
	}

	if err := os.WriteFile(ready, []byte(kubeconfig+"\n"), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "kubeharness: ready, kubeconfig %s\n", kubeconfig)

	select {
	case <-ctx.Done():
		_ = os.Remove(ready)
		return nil
	case err := <-api.errs:
		return fmt.Errorf("kube-apiserver stopped: %v", err)
	case err := <-schedErrs:
		return fmt.Errorf("kube-scheduler stopped: %v", err)
	case err := <-cmErrs:
		return fmt.Errorf("kube-controller-manager stopped: %v", err)
	}
}
