package main

import (
	"context"

	"github.com/spf13/pflag"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

// startScheduler runs the default kube-scheduler profile against the harness
// API server, so Pending pods get the real FailedScheduling events.
func startScheduler(ctx context.Context, kubeconfig string) (<-chan error, error) {
	opts := options.NewOptions()
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		// No serving port: nothing scrapes it, and a fixed port would clash
		// with a second harness on the same machine.
		"--secure-port=0",
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	cc, sched, err := app.Setup(ctx, opts)
	if err != nil {
		return nil, err
	}
	errs := make(chan error, 1)
	go func() { errs <- app.Run(ctx, cc, sched) }()
	return errs, nil
}
