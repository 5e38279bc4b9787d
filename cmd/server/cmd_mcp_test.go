package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient connects an SDK client over tr and lists the tools.
func mcpClient(t *testing.T, tr sdk.Transport) (*sdk.ClientSession, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyBound)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "cmd-test", Version: "test"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return cs, names
}

// classifyGPU calls classify_error with the scheduler's GPU message and
// checks the route and the evidence line.
func classifyGPU(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	const line = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "classify_error", Arguments: map[string]any{"text": line}})
	if err != nil || res.IsError {
		t.Fatalf("classify_error: %v %+v", err, res)
	}
	var out struct {
		Routes []struct {
			Route    string
			Evidence []struct{ Line string }
		}
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || len(out.Routes) == 0 {
		t.Fatalf("classify_error output %s: %v", data, err)
	}
	if r := out.Routes[0]; r.Route != "pending/insufficient-resources" || len(r.Evidence) == 0 || r.Evidence[0].Line != line {
		t.Errorf("top route %+v, want pending/insufficient-resources quoting the line", r)
	}
	bad, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": 42.5}})
	if err != nil || !bad.IsError {
		t.Errorf("get_incident with a number: err %v, result %+v; want a tool error", err, bad)
	}
}

// TestMCPOverHTTP talks to /mcp of the whole server, as an assistant
// configured with the portal's URL does.
func TestMCPOverHTTP(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	cs, tools := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", DisableStandaloneSSE: true})
	if len(tools) != 10 || strings.Contains(strings.Join(tools, " "), "triage_pod") || !strings.Contains(strings.Join(tools, " "), "get_drill_brief") {
		t.Errorf("tools %v: want the eight library tools, the two drill tools and no triage_pod without a cluster", tools)
	}
	classifyGPU(t, cs)
}

// headerTransport adds the identity header a sign-in proxy would.
type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPFollowsAccessRules: with an identity header required, /mcp refuses
// a client without it and serves one with it, like every page.
func TestMCPFollowsAccessRules(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--auth-header", "X-Forwarded-Email", "--allow-domains", "example.com", "--restrict-reads")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	anon := sdk.NewClient(&sdk.Implementation{Name: "anon", Version: "test"}, nil)
	if cs, err := anon.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", DisableStandaloneSSE: true}, nil); err == nil {
		cs.Close()
		t.Error("connected to /mcp without the identity header")
	}
	outsider := &http.Client{Transport: headerTransport{"X-Forwarded-Email", "eve@elsewhere.org"}}
	if cs, err := anon.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: outsider, DisableStandaloneSSE: true}, nil); err == nil {
		cs.Close()
		t.Error("connected to /mcp as a user outside the allow-list")
	}
	member := &http.Client{Transport: headerTransport{"X-Forwarded-Email", "sre@example.com"}}
	cs, _ := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: member, DisableStandaloneSSE: true})
	classifyGPU(t, cs)
}

// TestMCPCommand runs "casebook mcp" in-process with pipes for stdin and
// stdout, as an assistant that starts Casebook as a subprocess sees it;
// with a kubeconfig it also offers triage_pod and check_cluster_gaps.
func TestMCPCommand(t *testing.T) {
	t.Run("library", func(t *testing.T) {
		cs, tools := startMCPCommand(t)
		if len(tools) != 10 || !strings.Contains(strings.Join(tools, " "), "list_drills") {
			t.Errorf("tools %v", tools)
		}
		classifyGPU(t, cs)
	})
	t.Run("live", func(t *testing.T) {
		_, tools := startMCPCommand(t, "--kubeconfig", unreachableKubeconfig(t), "--namespaces", "ml")
		if len(tools) != 12 || !strings.Contains(strings.Join(tools, " "), "triage_pod") || !strings.Contains(strings.Join(tools, " "), "check_cluster_gaps") {
			t.Errorf("tools %v: want triage_pod and check_cluster_gaps with a kubeconfig", tools)
		}
	})
}

func startMCPCommand(t *testing.T, args ...string) (*sdk.ClientSession, []string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr logBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), append([]string{"mcp", "--data", t.TempDir()}, args...), noEnv, inR, outW, &stderr)
		outW.Close()
	}()
	cs, tools := mcpClient(t, &sdk.IOTransport{Reader: outR, Writer: inW})
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mcp command: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("mcp command did not exit when its input closed")
		}
	})
	return cs, tools
}

// TestMCPSubprocess builds the binary and drives "casebook mcp" over its
// real stdin and stdout, the way desktop assistants launch MCP servers.
func TestMCPSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "casebook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "mcp", "--data", t.TempDir(), "--log-level", "warn")
	var stderr logBuffer
	cmd.Stderr = &stderr
	cs, tools := mcpClient(t, &sdk.CommandTransport{Command: cmd})
	if len(tools) != 10 {
		t.Errorf("tools %v; stderr:\n%s", tools, stderr.String())
	}
	classifyGPU(t, cs)
}
