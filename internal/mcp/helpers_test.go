package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	deflib "casebook/library"

	"casebook/internal/content"
	"casebook/internal/mcp"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// loader loads the embedded library (compiled in, so concurrent edits to
// library/ cannot change it under the test), search index included.
func loader(t *testing.T) *content.Loader {
	t.Helper()
	dir := t.TempDir()
	l := content.NewLoader(deflib.FS, dir, quiet)
	t.Cleanup(l.Close)
	if _, err := l.Load(context.Background()); err != nil {
		t.Fatalf("load library: %v", err)
	}
	return l
}

// fakePods stands in for the cluster reader behind triage_pod.
type fakePods struct {
	mu   sync.Mutex
	last mcp.PodRequest
}

func (f *fakePods) TriagePod(_ context.Context, req mcp.PodRequest) (*mcp.PodResult, error) {
	f.mu.Lock()
	f.last = req
	f.mu.Unlock()
	if req.Namespace == "kube-system" {
		return nil, errors.New("namespace kube-system is not in the live-triage allow-list")
	}
	return &mcp.PodResult{Route: "pending/insufficient-resources", Playbook: "pod-pending", Section: "cause-a-insufficient-resources",
		Steps: []mcp.PodStep{{Question: "What does the newest FailedScheduling event say?", Answer: "insufficient",
			Evidence: []string{"Event FailedScheduling: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}}}}, nil
}

// connect starts a client session on transport t.
func connect(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "casebook-test", Version: "test"}, nil)
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call invokes a tool with raw JSON arguments. A protocol error fails the
// test: every bad argument must come back as a tool error instead.
func call(t *testing.T, cs *sdk.ClientSession, name, args string) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s(%s): protocol error %v; want a tool result", name, args, err)
	}
	return res
}

// text is the text content of a result.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// decode reads the structured output of a successful call into v.
func decode(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}
