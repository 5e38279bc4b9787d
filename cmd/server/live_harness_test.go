package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// harnessKubeconfig is the admin kubeconfig of the API server harness
// (scripts/kubeharness.sh start prints it). Outside CI a missing harness
// skips the test and says why; under CI=true it fails it.
func harnessKubeconfig(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CASEBOOK_KUBEHARNESS_KUBECONFIG")
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CASEBOOK_KUBEHARNESS_KUBECONFIG is not set: CI must start the API server harness (test/kubeharness/README.md)")
		}
		t.Skip("CASEBOOK_KUBEHARNESS_KUBECONFIG is not set; start the harness with scripts/kubeharness.sh start")
	}
	return path
}

type doorCase struct {
	ns, pod string
	status  int
	msg     string
}

// TestLiveRefusalsAtEveryDoor reads a real API server through the portal's
// page, its MCP tool and the CLI: a namespace outside --namespaces is 403
// on the web, a tool error over MCP and a non-zero exit on the command
// line, with the same message; a pod that does not exist is 404, a tool
// error and a non-zero exit, again with one message.
func TestLiveRefusalsAtEveryDoor(t *testing.T) {
	kc := harnessKubeconfig(t)
	// A budget that the refusals below do not spend; the limit itself is
	// tested at the end.
	s := hardStart(t, "--data", t.TempDir(), "--kubeconfig", kc, "--namespaces", "team-a", "--cluster-timeout", "20s",
		"--insecure-allow-anonymous-live-triage", "--rate-limit", "100000")
	cases := []doorCase{
		{"kube-system", "coredns-0", http.StatusForbidden,
			`namespace not open to live triage: "kube-system" is outside the allowed namespaces (team-a)`},
		{"team-a", "no-such-pod-0", http.StatusNotFound, "not found in the cluster: pod team-a/no-such-pod-0"},
	}
	// Every kind of target is refused outside the allow-list before
	// anything is read, and names what it did not find inside it.
	for kind, what := range map[string]string{"deployment": "deployment", "job": "job", "cronjob": "cronjob", "service": "service",
		"ingress": "ingress", "hpa": "horizontalpodautoscaler", "pvc": "persistentvolumeclaim"} {
		cases = append(cases,
			doorCase{"kube-system", kind + "/coredns", http.StatusForbidden,
				`namespace not open to live triage: "kube-system" is outside the allowed namespaces (team-a)`},
			doorCase{"team-a", kind + "/no-such-0", http.StatusNotFound, "not found in the cluster: " + what + " team-a/no-such-0"})
	}
	cs, tools := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", DisableStandaloneSSE: true})
	if !slices.Contains(tools, "triage_pod") {
		t.Fatalf("tools %v lack triage_pod with live triage on", tools)
	}
	for _, tc := range cases {
		t.Run(tc.ns+"/"+tc.pod, func(t *testing.T) {
			// The web page.
			resp, err := http.Get(s.URL + "/triage/cluster?" + url.Values{"namespace": {tc.ns}, "pod": {tc.pod}}.Encode())
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(page), htmlEscape(tc.msg)) {
				t.Errorf("web: %d, want %d with %q", resp.StatusCode, tc.status, tc.msg)
			}
			// The JSON download says the same in JSON.
			resp, err = http.Get(s.URL + "/triage/cluster/snapshot.json?" + url.Values{"namespace": {tc.ns}, "pod": {tc.pod}}.Encode())
			if err != nil {
				t.Fatal(err)
			}
			var body struct{ Error string }
			_ = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || body.Error != tc.msg {
				t.Errorf("snapshot.json: %d %q, want %d %q", resp.StatusCode, body.Error, tc.status, tc.msg)
			}
			// The MCP tool.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "triage_pod", Arguments: map[string]any{"namespace": tc.ns, "pod": tc.pod}})
			if err != nil {
				t.Fatalf("triage_pod: protocol error %v", err)
			}
			if got := toolText(res); !res.IsError || got != tc.msg {
				t.Errorf("mcp: error=%v %q, want %q", res.IsError, got, tc.msg)
			}
			// The CLI.
			var out, errOut bytes.Buffer
			err = run(context.Background(), []string{"triage", "--kubeconfig", kc, "--namespaces", "team-a", "-n", tc.ns, tc.pod},
				os.Getenv, nil, &out, &errOut)
			if err == nil || err.Error() != "triage: "+tc.msg {
				t.Errorf("cli: err %v, want %q", err, "triage: "+tc.msg)
			}
			var code exitCode
			if errors.As(err, &code) && code == 0 {
				t.Error("cli: exit status 0")
			}
		})
	}
}

// TestLiveLimitAtEveryDoor: one live read spends the burst of a portal
// with --rate-limit 6, and then a read of any kind of target is refused
// on the page, the JSON download and the MCP tool before the cluster is
// read.
func TestLiveLimitAtEveryDoor(t *testing.T) {
	kc := harnessKubeconfig(t)
	s := hardStart(t, "--data", t.TempDir(), "--kubeconfig", kc, "--namespaces", "team-a", "--cluster-timeout", "20s",
		"--insecure-allow-anonymous-live-triage", "--rate-limit", "6")
	cs, _ := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", DisableStandaloneSSE: true})
	get := func(path string) int {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/triage/cluster?namespace=team-a&pod=service%2Fno-such-0"); code != http.StatusNotFound {
		t.Fatalf("first read: %d, want 404", code)
	}
	for _, target := range []string{"deployment/web", "job/export", "cronjob/nightly", "service/checkout", "ingress/shop", "hpa/api", "pvc/data"} {
		q := url.Values{"namespace": {"team-a"}, "pod": {target}}.Encode()
		for _, path := range []string{"/triage/cluster?" + q, "/triage/cluster/snapshot.json?" + q} {
			if code := get(path); code != http.StatusTooManyRequests {
				t.Errorf("%s with the budget spent: %d, want 429", path, code)
			}
		}
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "triage_pod", Arguments: map[string]any{"namespace": "team-a", "pod": target}})
		if err != nil || !res.IsError || !strings.Contains(toolText(res), "too many requests") {
			t.Errorf("mcp %s with the budget spent: %v %q, want the rate limit", target, err, toolText(res))
		}
	}
}

func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func htmlEscape(s string) string {
	return strings.NewReplacer(`"`, "&#34;", "&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&#39;").Replace(s)
}
