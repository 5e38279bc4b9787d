package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes an admin kubeconfig. The CA file is the API
// server's self-signed serving certificate, whose chain includes its CA.
func writeKubeconfig(path, server, caFile, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubeharness"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: caFile}
	cfg.AuthInfos["kubeharness-admin"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["kubeharness"] = &clientcmdapi.Context{Cluster: "kubeharness", AuthInfo: "kubeharness-admin", Namespace: "default"}
	cfg.CurrentContext = "kubeharness"
	return clientcmd.WriteToFile(*cfg, path)
}

// waitHealthy polls /readyz, which only passes after the RBAC bootstrap
// roles and priority classes exist, so tests never race the post-start hooks.
func waitHealthy(ctx context.Context, kubeconfig string, apiErrs <-chan error) error {
	restCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	restCfg.Timeout = 5 * time.Second
	client, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	var last error
	for {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		last = err
		select {
		case err := <-apiErrs:
			return fmt.Errorf("stopped while starting: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("not ready: %v (last error: %v)", ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
