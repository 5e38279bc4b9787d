package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// decodeKind picks the objects of one kind out of a rendered chart, decoded
// into out's element type.
func decodeKind[T any](t *testing.T, data []byte, kind string) []T {
	t.Helper()
	var out []T
	for _, o := range splitDocs(t, data) {
		if o.Kind != kind {
			continue
		}
		var v T
		if err := yaml.Unmarshal(o.raw, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

type networkPolicy struct {
	Spec struct {
		PodSelector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"podSelector"`
		PolicyTypes []string `yaml:"policyTypes"`
		Ingress     []struct {
			From  []map[string]any `yaml:"from"`
			Ports []struct {
				Port     any    `yaml:"port"`
				Protocol string `yaml:"protocol"`
			} `yaml:"ports"`
		} `yaml:"ingress"`
	} `yaml:"spec"`
}

type deployment struct {
	Spec struct {
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				Containers []struct {
					Name  string `yaml:"name"`
					Ports []struct {
						Name          string `yaml:"name"`
						ContainerPort int    `yaml:"containerPort"`
					} `yaml:"ports"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The identity header is trusted as sent, so the NetworkPolicy is what
// keeps every path but the sign-in proxy's away from the pods. It must
// select the chart's own pods (a selector that matches nothing protects
// nothing), admit exactly the configured proxy and scraper peers on the
// container's port, and refuse to render without a proxy peer. Applied to
// the harness API server, it is a valid object.
func TestChartNetworkPolicyAdmitsOnlyTheProxy(t *testing.T) {
	helm := helmBinary(t)
	proxy := map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "auth"}},
		"podSelector":       map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": "oauth2-proxy"}},
	}
	scraper := map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}
	out := render(t, helm, []string{
		"--set", "networkPolicy.from[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=auth",
		"--set", "networkPolicy.from[0].podSelector.matchLabels.app\\.kubernetes\\.io/name=oauth2-proxy",
		"--set", "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring",
		"--set", "auth.header=X-Forwarded-Email"})
	nps := decodeKind[networkPolicy](t, out, "NetworkPolicy")
	deps := decodeKind[deployment](t, out, "Deployment")
	if len(nps) != 1 || len(deps) != 1 {
		t.Fatalf("%d NetworkPolicies and %d Deployments rendered, want one each", len(nps), len(deps))
	}
	np, dep := nps[0].Spec, deps[0].Spec.Template
	for k, v := range np.PodSelector.MatchLabels {
		if dep.Metadata.Labels[k] != v {
			t.Errorf("the policy selects %s=%s, which the Deployment's pods do not carry (%v)", k, v, dep.Metadata.Labels)
		}
	}
	if len(np.PodSelector.MatchLabels) == 0 {
		t.Error("the policy's pod selector is empty: it would apply to every pod of the namespace")
	}
	if !reflect.DeepEqual(np.PolicyTypes, []string{"Ingress"}) || len(np.Ingress) != 1 {
		t.Fatalf("policy types %v with %d ingress rules, want [Ingress] and one rule", np.PolicyTypes, len(np.Ingress))
	}
	rule := np.Ingress[0]
	if !reflect.DeepEqual(rule.From, []map[string]any{proxy, scraper}) {
		t.Errorf("the rule admits %v, want exactly the proxy and the scraper", rule.From)
	}
	ports := map[string]bool{}
	for _, c := range dep.Spec.Containers {
		if c.Name == "casebook" {
			for _, p := range c.Ports {
				ports[p.Name], ports[fmt.Sprint(p.ContainerPort)] = true, true
			}
		}
	}
	if len(rule.Ports) != 1 || !ports[fmt.Sprint(rule.Ports[0].Port)] {
		t.Errorf("the rule opens %v, want the casebook container's port, by name or number (%v)", rule.Ports, ports)
	}

	// Off on request; never without a proxy peer.
	if off := decodeKind[networkPolicy](t, render(t, helm, []string{"--set", "networkPolicy.enabled=false"}), "NetworkPolicy"); len(off) != 0 {
		t.Error("networkPolicy.enabled=false still renders a NetworkPolicy")
	}
	cmd := exec.Command(helm, "template", "casebook", "./helm/casebook", "--namespace", "casebook", "--set", "networkPolicy.from=null")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "networkPolicy.from must name the sign-in proxy") {
		t.Errorf("a policy without a proxy peer rendered (err %v):\n%.300s", err, b)
	}

	kubeconfig := os.Getenv("CASEBOOK_KUBEHARNESS_KUBECONFIG")
	if kubeconfig == "" {
		missing(t, "the API-server harness (CASEBOOK_KUBEHARNESS_KUBECONFIG; see test/kubeharness)")
	}
	c := newClient(t, kubeconfig)
	ns := []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: casebook\n")
	if status, body, err := c.do("PATCH", "/api/v1/namespaces/casebook?fieldManager=casebook-deploy-test&force=true", "application/apply-patch+yaml", ns); err != nil || status >= 300 {
		t.Fatalf("create namespace: %d %s %v", status, body, err)
	}
	for _, o := range splitDocs(t, out) {
		if o.Kind == "NetworkPolicy" {
			if err := c.dryRunApply(o, "casebook"); err != nil {
				t.Error(err)
			}
		}
	}
}
