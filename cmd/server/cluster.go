package main

import (
	"log/slog"

	"casebook/internal/cluster"
	"casebook/internal/web"
)

// clusterConfig connects live triage when asked to. Connecting builds the
// client only; an unreachable cluster shows up per request, where the page
// degrades to questions.
func clusterConfig(cfg config, log *slog.Logger) web.ClusterConfig {
	cc := web.ClusterConfig{Namespaces: splitList(cfg.Namespaces), Timeout: cfg.ClusterTimeout,
		Note: "Live triage is off: start the server with --kubeconfig or --in-cluster to read pods from a cluster."}
	if cfg.Kubeconfig == "" && !cfg.InCluster {
		return cc
	}
	r, err := cluster.Connect(cluster.Options{Kubeconfig: cfg.Kubeconfig, Context: cfg.KubeContext, Namespaces: cc.Namespaces,
		ReadLogs: cfg.ReadLogs, CollectTimeout: cfg.ClusterTimeout})
	if err != nil {
		// The error names the file or context, never credentials.
		log.Error("live triage disabled: cannot configure the cluster client", "err", err)
		cc.Note = "Live triage is configured but the cluster client could not be set up; see the server log."
		return cc
	}
	cc.Reader = r
	if cfg.AuthHeader == "" {
		log.Warn("live triage is on without --auth-header: anyone who can reach the portal can read the cluster through it")
	}
	log.Info("live triage enabled", "namespaces", cc.Namespaces, "read_logs", cfg.ReadLogs)
	return cc
}
