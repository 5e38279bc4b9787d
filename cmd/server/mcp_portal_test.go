package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// unreachableKubeconfig names a cluster nothing listens on: live triage is
// configured, and every read fails fast.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	const kc = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: none, user: u}}]
current-context: c
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPortalTriagePod: with live triage on, /mcp offers triage_pod under the
// wizard's rules: an identity outside the allow-list is refused by both,
// and a namespace outside --namespaces is refused by the reader.
func TestPortalTriagePod(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--kubeconfig", unreachableKubeconfig(t), "--namespaces", "ml",
		"--auth-header", "X-Forwarded-Email", "--allow-users", "sre@example.com", "--cluster-timeout", "3s")
	connectAs := func(id string) *sdk.ClientSession {
		client := &http.Client{Transport: headerTransport{"X-Forwarded-Email", id}}
		cs, tools := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: client, DisableStandaloneSSE: true})
		if !slices.Contains(tools, "triage_pod") {
			t.Fatalf("tools %v lack triage_pod with live triage on", tools)
		}
		return cs
	}
	callPod := func(cs *sdk.ClientSession, ns string) (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "triage_pod", Arguments: map[string]any{"namespace": ns, "pod": "trainer-0"}})
		if err != nil {
			t.Fatalf("triage_pod: protocol error %v", err)
		}
		return res.IsError, toolText(res)
	}

	req, _ := http.NewRequest("GET", s.URL+"/triage/cluster?namespace=ml&pod=trainer-0", nil)
	req.Header.Set("X-Forwarded-Email", "eve@elsewhere.org")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("the wizard let eve read the cluster: %d", resp.StatusCode)
	}
	if isErr, msg := callPod(connectAs("eve@elsewhere.org"), "ml"); !isErr || !strings.Contains(msg, "allow-listed") {
		t.Errorf("eve over MCP: error=%v %q; want refused like the wizard", isErr, msg)
	}
	sre := connectAs("sre@example.com")
	if isErr, msg := callPod(sre, "kube-system"); !isErr || !strings.Contains(msg, "not open to live triage") {
		t.Errorf("namespace outside --namespaces: error=%v %q", isErr, msg)
	}
	// The cluster is unreachable: the answer is about the cluster, not a
	// refusal, and arrives within the collection bound.
	if _, msg := callPod(sre, "ml"); strings.Contains(msg, "allow-listed") || strings.Contains(msg, "not open") {
		t.Errorf("sre was refused: %q", msg)
	}
}
