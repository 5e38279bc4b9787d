package main

import (
	"log/slog"

	"casebook/internal/access"
	"casebook/internal/cluster"
	"casebook/internal/i18n"
	"casebook/internal/live"
)

// clusterOptions are the reader's options from the serve and mcp flags.
func clusterOptions(c config) cluster.Options {
	return cluster.Options{Kubeconfig: c.Kubeconfig, Context: c.KubeContext, Namespaces: splitList(c.Namespaces),
		ReadLogs: c.ReadLogs, CollectTimeout: c.ClusterTimeout}
}

// connectCluster builds the one cluster reader of the process when live
// triage is asked for (--kubeconfig or --in-cluster). Connecting builds the
// client only; an unreachable cluster shows up per request, where the
// pages degrade to questions. A nil reader comes with why live triage is
// off, for the pages that offer it.
func connectCluster(cfg config, log *slog.Logger) (*cluster.Reader, i18n.Msg) {
	if cfg.Kubeconfig == "" && !cfg.InCluster {
		return nil, i18n.M("live.off_flags")
	}
	r, err := cluster.Connect(clusterOptions(cfg))
	if err != nil {
		// The error names the file or context, never credentials.
		log.Error("live triage disabled: cannot configure the cluster client", "err", err)
		return nil, i18n.M("live.off_client")
	}
	log.Info("live triage enabled", "namespaces", cfg.Namespaces, "read_logs", cfg.ReadLogs)
	return r, i18n.Msg{}
}

// liveService is live triage over the reader (off when it is nil), with
// the policy and limiter every door shares.
func liveService(cfg config, r *cluster.Reader, off i18n.Msg, policy access.Policy, lim *access.Limiter, m live.Metrics) *live.Service {
	o := live.Options{Namespaces: splitList(cfg.Namespaces), Timeout: cfg.ClusterTimeout, Policy: policy, Limiter: lim, Metrics: m, Off: off}
	if r != nil {
		o.Reader = r
	}
	return live.New(o)
}
