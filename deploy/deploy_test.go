// Package deploy holds Casebook's Kubernetes manifests and Helm chart. Its
// test renders the chart and applies everything with a server-side dry run
// against the real API server of the live-cluster tests.
package deploy

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// missing skips outside CI and fails in CI, so nothing is silently unchecked.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required in CI", what)
	}
	t.Skipf("%s not available; skipping (CI=true makes this a failure)", what)
}

func helmBinary(t *testing.T) string {
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{filepath.Join(os.Getenv("GOPATH"), "bin", "helm"), filepath.Join(home, "go", "bin", "helm")} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	missing(t, "helm (go install helm.sh/helm/v3/cmd/helm@v3.22.0)")
	return ""
}

// valueSets are the chart configurations a team is likely to use.
var valueSets = map[string][]string{
	"defaults": nil,
	"ingress and metrics": {"--set", "ingress.enabled=true", "--set", "ingress.className=nginx", "--set", "ingress.hosts={casebook.example.com}",
		"--set", "publicURL=https://casebook.example.com", "--set", "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring"},
	"everything on": {"--set", "liveTriage.enabled=true", "--set", "liveTriage.namespaces={team-a,team-b}", "--set", "liveTriage.readLogs=true",
		"--set", "gitSync.enabled=true", "--set", "gitSync.repo=https://git.example.com/incidents.git",
		"--set", "auth.header=X-Forwarded-Email", "--set", "auth.allowDomains={example.com}", "--set", "auth.restrictReads=true"},
	"two layers": {"-f", "testdata/values-two-layers.yaml"},
}

func render(t *testing.T, helm string, args []string) []byte {
	t.Helper()
	cmd := exec.Command(helm, append([]string{"template", "casebook", "./helm/casebook", "--namespace", "casebook"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
	raw []byte
}

func splitDocs(t *testing.T, data []byte) []object {
	t.Helper()
	var out []object
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("parse manifests: %v", err)
		}
		if len(node.Content) == 0 {
			continue
		}
		var o object
		if err := node.Decode(&o); err != nil {
			t.Fatal(err)
		}
		if o.Kind == "" {
			continue
		}
		o.raw, _ = yaml.Marshal(&node)
		out = append(out, o)
	}
	return out
}

// resource maps the kinds the manifests use to their REST collection.
var resource = map[string]struct {
	group, plural string
	namespaced    bool
}{
	"Deployment":          {"apis/apps/v1", "deployments", true},
	"Service":             {"api/v1", "services", true},
	"ServiceAccount":      {"api/v1", "serviceaccounts", true},
	"PodDisruptionBudget": {"apis/policy/v1", "poddisruptionbudgets", true},
	"ClusterRole":         {"apis/rbac.authorization.k8s.io/v1", "clusterroles", false},
	"ClusterRoleBinding":  {"apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", false},
	"Role":                {"apis/rbac.authorization.k8s.io/v1", "roles", true},
	"RoleBinding":         {"apis/rbac.authorization.k8s.io/v1", "rolebindings", true},
	"NetworkPolicy":       {"apis/networking.k8s.io/v1", "networkpolicies", true},
	"Ingress":             {"apis/networking.k8s.io/v1", "ingresses", true},
	"Namespace":           {"api/v1", "namespaces", false},
}

// apiClient talks to the harness API server with the admin kubeconfig.
type apiClient struct {
	server, token string
	http          *http.Client
}

func newClient(t *testing.T, kubeconfig string) *apiClient {
	t.Helper()
	b, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server                   string `yaml:"server"`
				CertificateAuthority     string `yaml:"certificate-authority"`
				CertificateAuthorityData string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User struct {
				Token string `yaml:"token"`
			} `yaml:"user"`
		} `yaml:"users"`
	}
	if err := yaml.Unmarshal(b, &kc); err != nil || len(kc.Clusters) == 0 || len(kc.Users) == 0 {
		t.Fatalf("kubeconfig %s: %v", kubeconfig, err)
	}
	pool := x509.NewCertPool()
	ca := kc.Clusters[0].Cluster.CertificateAuthority
	if ca != "" {
		if !filepath.IsAbs(ca) {
			ca = filepath.Join(filepath.Dir(kubeconfig), ca)
		}
		pem, err := os.ReadFile(ca)
		if err != nil {
			t.Fatal(err)
		}
		pool.AppendCertsFromPEM(pem)
	}
	return &apiClient{server: kc.Clusters[0].Cluster.Server, token: kc.Users[0].User.Token,
		http: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
}

func (c *apiClient) do(method, path, ctype string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, c.server+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

// dryRunApply sends one object as a server-side apply with dryRun=All: the
// API server validates it against its schemas and admission, stores nothing.
func (c *apiClient) dryRunApply(o object, defaultNS string) error {
	r, ok := resource[o.Kind]
	if !ok {
		return fmt.Errorf("no REST mapping for kind %s (add it to the test)", o.Kind)
	}
	path := "/" + r.group + "/"
	if r.namespaced {
		ns := o.Metadata.Namespace
		if ns == "" {
			ns = defaultNS
		}
		path += "namespaces/" + ns + "/"
	}
	path += r.plural + "/" + o.Metadata.Name + "?dryRun=All&fieldManager=casebook-deploy-test&force=true&fieldValidation=Strict"
	status, body, err := c.do("PATCH", path, "application/apply-patch+yaml", o.raw)
	if err != nil {
		return err
	}
	if status != 200 && status != 201 {
		return fmt.Errorf("%s %s: HTTP %d: %s", o.Kind, o.Metadata.Name, status, body)
	}
	return nil
}

func TestManifestsApplyWithServerSideDryRun(t *testing.T) {
	helm := helmBinary(t)
	kubeconfig := os.Getenv("CASEBOOK_KUBEHARNESS_KUBECONFIG")
	if kubeconfig == "" {
		missing(t, "the API-server harness (CASEBOOK_KUBEHARNESS_KUBECONFIG; see test/kubeharness)")
	}
	c := newClient(t, kubeconfig)
	// The namespace must exist for a namespaced dry run.
	ns := []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: casebook\n")
	if status, body, err := c.do("PATCH", "/api/v1/namespaces/casebook?fieldManager=casebook-deploy-test&force=true", "application/apply-patch+yaml", ns); err != nil || status >= 300 {
		t.Fatalf("create namespace: %d %s %v", status, body, err)
	}
	sets := map[string][]byte{}
	for name, args := range valueSets {
		sets["helm "+name] = render(t, helm, args)
	}
	for _, f := range []string{"kubernetes/casebook.yaml", "rbac-readonly.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sets[f] = b
	}
	for name, data := range sets {
		t.Run(name, func(t *testing.T) {
			objs := splitDocs(t, data)
			if len(objs) == 0 {
				t.Fatal("no objects")
			}
			for _, o := range objs {
				if err := c.dryRunApply(o, "casebook"); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// The chart's rendered Deployment must keep the hardening the operations
// guide promises, whatever the values.
func TestChartKeepsHardening(t *testing.T) {
	helm := helmBinary(t)
	for name, args := range valueSets {
		t.Run(name, func(t *testing.T) {
			out := string(render(t, helm, args))
			for _, want := range []string{"readOnlyRootFilesystem: true", "runAsNonRoot: true", "allowPrivilegeEscalation: false",
				"path: /readyz", "path: /healthz", "emptyDir", "replicas: 2", "kind: PodDisruptionBudget",
				"kind: NetworkPolicy", "policyTypes: [Ingress]", "--allowed-hosts=casebook-casebook,casebook-casebook.casebook,"} {
				if !strings.Contains(out, want) {
					t.Errorf("rendered chart lacks %q", want)
				}
			}
			if strings.Contains(name, "everything") {
				for _, want := range []string{"kind: ServiceAccount", "kind: ClusterRoleBinding", "git-sync", "--auth-header=X-Forwarded-Email", "--namespaces=team-a,team-b"} {
					if !strings.Contains(out, want) {
						t.Errorf("rendered chart lacks %q", want)
					}
				}
			}
		})
	}
}

// The public library, a git-synced team layer and a ConfigMap layer: each
// layer reaches the server as its own --library, in order, over a read-only
// mount; the git-sync sidecar publishes the first.
func TestChartTwoLayers(t *testing.T) {
	helm := helmBinary(t)
	out := string(render(t, helm, valueSets["two layers"]))
	first := strings.Index(out, "- --library=/git/current/library\n")
	second := strings.Index(out, "- --library=/layers/acme-runbooks\n")
	if first < 0 || second < first {
		t.Errorf("layers reach the server out of order or not at all (git at %d, configmap at %d)", first, second)
	}
	for _, want := range []string{"name: git-sync", `{name: "layer-acme-runbooks", mountPath: "/layers/acme-runbooks", readOnly: true}`,
		"name: acme-runbooks", "path: incidents/ACME-0007-gateway.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("two-layer chart lacks %q", want)
		}
	}
	if strings.Contains(out, "--no-embedded") {
		t.Error("the public library is left out though embeddedLibrary is on")
	}
	for _, bad := range [][]string{
		{"--set", "embeddedLibrary=false"},
		{"--set", "layers[0].name=Bad_Name", "--set", "layers[0].volume.emptyDir.medium=Memory"},
		{"--set", "layers[0].name=acme"},
	} {
		cmd := exec.Command(helm, append([]string{"template", "casebook", "./helm/casebook"}, bad...)...)
		if b, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("helm template %v rendered; want a refusal:\n%.200s", bad, b)
		}
	}
	own := string(render(t, helm, []string{"-f", "testdata/values-two-layers.yaml", "--set", "embeddedLibrary=false"}))
	if !strings.Contains(own, "- --no-embedded") {
		t.Error("embeddedLibrary=false does not reach the server as --no-embedded")
	}
}

// A restricted team layer reaches the server as --restrict-layer; without
// an identity header or an allow-list the chart refuses to render it, as
// the server would refuse to start.
func TestChartRestrictLayers(t *testing.T) {
	helm := helmBinary(t)
	out := string(render(t, helm, []string{"-f", "testdata/values-two-layers.yaml", "--set", "auth.header=X-Forwarded-Email",
		"--set", "auth.allowDomains={acme.example}", "--set", "auth.restrictLayers={acme-runbooks}"}))
	if !strings.Contains(out, "- --restrict-layer=acme-runbooks\n") {
		t.Error("auth.restrictLayers does not reach the server as --restrict-layer")
	}
	for want, args := range map[string][]string{
		"needs auth.header":                   {"--set", "auth.restrictLayers={acme}", "--set", "auth.allowUsers={a@acme.example}"},
		"needs auth.allowUsers or auth.allow": {"--set", "auth.restrictLayers={acme}", "--set", "auth.header=X-Forwarded-Email"},
	} {
		cmd := exec.Command(helm, append([]string{"template", "casebook", "./helm/casebook"}, args...)...)
		if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), want) {
			t.Errorf("helm template %v: %v, want a refusal saying %q:\n%.300s", args, err, want, b)
		}
	}
}

// Live triage without an identity header would let anyone who reaches the
// portal read the cluster: the chart refuses to render it, unless told.
func TestChartRefusesAnonymousLiveTriage(t *testing.T) {
	helm := helmBinary(t)
	cmd := exec.Command(helm, "template", "casebook", "./helm/casebook", "--namespace", "casebook", "--set", "liveTriage.enabled=true")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "liveTriage.enabled needs auth.header") {
		t.Errorf("live triage without auth.header rendered (err %v):\n%.300s", err, out)
	}
	rendered := string(render(t, helm, []string{"--set", "liveTriage.enabled=true", "--set", "liveTriage.insecureAllowAnonymous=true"}))
	if !strings.Contains(rendered, "--insecure-allow-anonymous-live-triage") {
		t.Error("the explicit opt-in does not reach the server's flags")
	}
	ing := string(render(t, helm, valueSets["ingress and metrics"]))
	for _, want := range []string{"kind: Ingress", `host: "casebook.example.com"`, ",casebook.example.com", "--public-url=https://casebook.example.com", "name: monitoring"} {
		if !strings.Contains(ing, want) {
			t.Errorf("the chart with an ingress lacks %q", want)
		}
	}
}

// memoryLimit reaches the server as --memory-limit, as written (a plain
// number of bytes too, which YAML would otherwise print as 3e+08); left
// empty, the server's auto mode reads the container's limit itself.
func TestChartMemoryLimit(t *testing.T) {
	helm := helmBinary(t)
	for _, tc := range []struct {
		args []string
		want string // "" for no flag
	}{
		{nil, ""},
		{[]string{"--set", "memoryLimit=400Mi"}, "- --memory-limit=400Mi\n"},
		{[]string{"--set", "memoryLimit=off"}, "- --memory-limit=off\n"},
		{[]string{"--set", "memoryLimit=300000000"}, "- --memory-limit=300000000\n"},
		{[]string{"-f", "testdata/values-memory-limit.yaml"}, "- --memory-limit=300000000\n"},
	} {
		out := string(render(t, helm, tc.args))
		if !strings.Contains(out, "memory: 512Mi") {
			t.Errorf("%v: the container lost its memory limit, which auto mode reads", tc.args)
		}
		switch {
		case tc.want == "" && strings.Contains(out, "--memory-limit"):
			t.Errorf("%v: --memory-limit rendered though memoryLimit is empty (auto)", tc.args)
		case tc.want != "" && !strings.Contains(out, tc.want):
			t.Errorf("%v: rendered chart lacks %q", tc.args, tc.want)
		}
	}
}

// The chart grants exactly what deploy/rbac-readonly.yaml grants.
func TestChartRulesMatchReadonlyRole(t *testing.T) {
	var want any
	for _, o := range splitDocs(t, mustRead(t, "rbac-readonly.yaml")) {
		if o.Kind == "ClusterRole" && o.Metadata.Name == "casebook-readonly" {
			var cr struct {
				Rules any `yaml:"rules"`
			}
			if err := yaml.Unmarshal(o.raw, &cr); err != nil {
				t.Fatal(err)
			}
			want = cr.Rules
		}
	}
	var got any
	if err := yaml.Unmarshal(mustRead(t, "helm/casebook/files/readonly-rules.yaml"), &got); err != nil {
		t.Fatal(err)
	}
	wb, _ := yaml.Marshal(want)
	gb, _ := yaml.Marshal(got)
	if want == nil || !bytes.Equal(wb, gb) {
		t.Errorf("helm/casebook/files/readonly-rules.yaml differs from the casebook-readonly rules in rbac-readonly.yaml; copy them over:\n--- rbac-readonly.yaml\n%s\n--- chart\n%s", wb, gb)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A pod's stop fits its grace period: on SIGTERM /readyz answers 503 for
// shutdownDelay while the server still serves, then the requests in
// flight get shutdownTimeout, all before the kubelet kills the container
// at terminationGracePeriodSeconds. The plain manifest says the same.
// test/replicas (TestSIGTERMUnderLoad) runs the server with these values.
func TestChartShutdownFitsTheGracePeriod(t *testing.T) {
	b, err := os.ReadFile("helm/casebook/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ShutdownDelay   string `yaml:"shutdownDelay"`
		ShutdownTimeout string `yaml:"shutdownTimeout"`
		Grace           int    `yaml:"terminationGracePeriodSeconds"`
	}
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	delay, err1 := time.ParseDuration(v.ShutdownDelay)
	timeout, err2 := time.ParseDuration(v.ShutdownTimeout)
	if err1 != nil || err2 != nil || delay <= 0 {
		t.Fatalf("shutdownDelay %q, shutdownTimeout %q: want durations, the delay above 0", v.ShutdownDelay, v.ShutdownTimeout)
	}
	if grace := time.Duration(v.Grace) * time.Second; delay+timeout >= grace {
		t.Errorf("shutdownDelay %s + shutdownTimeout %s do not fit terminationGracePeriodSeconds %s", delay, timeout, grace)
	}
	want := []string{fmt.Sprintf("terminationGracePeriodSeconds: %d", v.Grace),
		fmt.Sprintf(`{name: CASEBOOK_SHUTDOWN_DELAY, value: "%s"}`, v.ShutdownDelay),
		fmt.Sprintf(`{name: CASEBOOK_SHUTDOWN_TIMEOUT, value: "%s"}`, v.ShutdownTimeout)}
	plain, err := os.ReadFile("kubernetes/casebook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(plain), w) {
			t.Errorf("kubernetes/casebook.yaml lacks %q", w)
		}
	}
	out := string(render(t, helmBinary(t), nil))
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("rendered chart lacks %q", w)
		}
	}
}
