package main

import (
	"context"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
)

// DefaultControllers are the kube-controller-manager loops a harness started
// with --with-controllers runs: those that turn workloads into pods and
// record why they could not (a ReplicaSet's FailedCreate when quota admission
// refuses a pod), count quota usage, create ResourceClaims from templates and
// compute PodDisruptionBudget status. The node lifecycle controller is left
// out on purpose: without a kubelet it would mark every node NotReady and
// evict the pods the tests placed there; tests write node status instead.
// The EndpointSlice and HorizontalPodAutoscaler controllers publish what a
// Service selects and what an HPA could not read, as on a real cluster.
const DefaultControllers = "deployment-controller,replicaset-controller,statefulset-controller," +
	"daemonset-controller,job-controller,cronjob-controller,resourcequota-controller," +
	"resourceclaim-controller,disruption-controller,garbage-collector-controller,namespace-controller," +
	"endpointslice-controller,horizontal-pod-autoscaler-controller"

// startControllerManager runs kube-controller-manager in this process with
// the given controllers (a --controllers list), against the harness API
// server, the way an operator would start it but without leader election or
// a serving port.
func startControllerManager(ctx context.Context, kubeconfig, controllers string) (<-chan error, error) {
	s, err := options.NewKubeControllerManagerOptions()
	if err != nil {
		return nil, err
	}
	fs := pflag.NewFlagSet("kube-controller-manager", pflag.ContinueOnError)
	for _, f := range s.Flags(app.KnownControllers(), app.ControllersDisabledByDefault(), app.ControllerAliases()).FlagSets {
		fs.AddFlagSet(f)
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		// No serving port: nothing scrapes it, and a fixed port would clash
		// with a second harness on the same machine.
		"--secure-port=0",
		"--controllers=" + strings.TrimSpace(controllers),
		// The harness has no kubelets; a short quota resync makes
		// ResourceQuota usage current soon after a test creates pods.
		"--resource-quota-sync-period=5s",
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := s.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	c, err := s.Config(ctx, app.KnownControllers(), app.ControllersDisabledByDefault(), app.ControllerAliases())
	if err != nil {
		return nil, err
	}
	errs := make(chan error, 1)
	go func() { errs <- app.Run(ctx, c.Complete()) }()
	return errs, nil
}
