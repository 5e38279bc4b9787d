package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/live"
	"casebook/internal/snapshot"
	deflib "casebook/library"
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

// gpuPending is a pod the scheduler left Pending for want of GPUs, as the
// cluster reader would return it.
func gpuPending(ns, name string) *snapshot.Snapshot {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &snapshot.Snapshot{Version: snapshot.Version, CollectedAt: now, Target: snapshot.Target{Namespace: ns, Kind: "Pod", Name: name},
		Pod: &snapshot.Pod{Namespace: ns, Name: name, Phase: "Pending",
			Containers: []snapshot.Container{{Name: "train", Requests: snapshot.ResourceList{"nvidia.com/gpu": snapshot.MustQuantity("4")}}},
			Conditions: []snapshot.Condition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", Message: gpuEvent}}},
		Events: []snapshot.Event{{Type: "Warning", Reason: "FailedScheduling", Message: gpuEvent, LastTime: now,
			Object: snapshot.ObjectRef{Kind: "Pod", Namespace: ns, Name: name}}},
		Nodes: []snapshot.Node{{Name: "gpu-1", Labels: map[string]string{snapshot.LabelGPUPresent: "true"},
			Allocatable:    snapshot.ResourceList{"nvidia.com/gpu": snapshot.MustQuantity("4")},
			Requested:      snapshot.ResourceList{"nvidia.com/gpu": snapshot.MustQuantity("4")},
			RequestedKnown: true, Conditions: []snapshot.Condition{{Type: "Ready", Status: "True"}}}}}
}

// fakeCluster stands in for the cluster reader behind triage_pod, with the
// real reader's errors: it refuses kube-system as a reader configured with
// --namespaces ml would, and knows one pod.
type fakeCluster struct {
	mu    sync.Mutex
	reads int
}

func (f *fakeCluster) Collect(_ context.Context, ns, target string) (*snapshot.Snapshot, error) {
	f.mu.Lock()
	f.reads++
	f.mu.Unlock()
	switch {
	case ns != "ml":
		return nil, snapshot.NamespaceNotAllowed(ns, []string{"ml"})
	case target != "trainer-0":
		return nil, fmt.Errorf("%w: pod %s/%s", snapshot.ErrNotFound, ns, target)
	}
	return gpuPending(ns, target), nil
}

func (f *fakeCluster) Scan(context.Context, string) (*snapshot.Scan, error) {
	return nil, errors.New("scan is not used by the MCP tools")
}

// liveOver is live triage over the fake cluster, as "casebook mcp" builds
// it: no access policy, no limiter.
func liveOver(f *fakeCluster) *live.Service { return live.New(live.Options{Reader: f}) }

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
