package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// helmBinary finds helm; outside CI a missing helm skips the test, in CI
// it fails it.
func helmBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	home, _ := os.UserHomeDir()
	for _, p := range []string{filepath.Join(os.Getenv("GOPATH"), "bin", "helm"), filepath.Join(home, "go", "bin", "helm")} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("helm is required in CI (go install helm.sh/helm/v3/cmd/helm@v3.22.0)")
	}
	t.Skip("helm not found; skipping (CI=true makes this a failure)")
	return ""
}

// chartContainer is the casebook container of the chart's Deployment.
type chartContainer struct {
	Args []string `yaml:"args"`
	Env  []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
}

// The chart's probes (and a Prometheus scrape) reach the pod by its IP, so
// the server the chart configures must answer them with the pod IP as
// Host, while a rebinding name is refused and the Service and ingress
// names are answered.
func TestChartProbesAnswerThePodIP(t *testing.T) {
	helm := helmBinary(t)
	cmd := exec.Command(helm, "template", "casebook", "../../deploy/helm/casebook", "--namespace", "casebook",
		"--set", "ingress.enabled=true", "--set", "ingress.hosts={casebook.example.com}")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm template: %v\n%s", err, errb.String())
	}
	var c chartContainer
	var probes []string
	dec := yaml.NewDecoder(&out)
	for {
		var doc struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers []map[string]any `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if doc.Kind != "Deployment" {
			continue
		}
		for _, ct := range doc.Spec.Template.Spec.Containers {
			if ct["name"] != "casebook" {
				continue
			}
			b, _ := yaml.Marshal(ct)
			if err := yaml.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
				p, _ := ct[k].(map[string]any)
				get, _ := p["httpGet"].(map[string]any)
				if path, ok := get["path"].(string); ok {
					probes = append(probes, path)
				}
			}
		}
	}
	if len(c.Args) == 0 || len(probes) != 3 {
		t.Fatalf("no casebook container with three HTTP probes in the chart: %+v %v", c, probes)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	env["CASEBOOK_DATA"], env["CASEBOOK_ADDR"] = t.TempDir(), "127.0.0.1:0" // the container's are for the container
	args := slices.DeleteFunc(slices.Clone(c.Args), func(a string) bool { return a == "serve" })
	s := hardStartEnv(t, func(k string) string { return env[k] }, args...)

	const podIP = "10.244.3.17:8080"
	for _, path := range append(probes, "/metrics") {
		if code, body := s.request(t, "GET", path, podIP, "", nil); code != http.StatusOK {
			t.Errorf("%s with Host %s: %d %.200s", path, podIP, code, body)
		}
	}
	for host, want := range map[string]int{
		"casebook-casebook.casebook.svc.cluster.local": 200, "casebook-casebook:80": 200, "casebook.example.com": 200,
		"rebind.attacker.example": http.StatusMisdirectedRequest,
	} {
		if code, body := s.request(t, "GET", "/", host, "", nil); code != want {
			t.Errorf("/ with Host %s: %d, want %d: %.200s", host, code, want, body)
		} else if want != 200 && !strings.Contains(body, "--allowed-hosts") {
			t.Errorf("the refusal does not name the setting: %.300s", body)
		}
	}
}
