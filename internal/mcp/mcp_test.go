package mcp_test

import (
	"context"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/mcp"
)

const gpuEvent = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."

// allTools is sorted: clients list tools by name.
var allTools = []string{"classify_error", "get_incident", "get_playbook", "get_term", "library_trends", "list_incidents", "search_incidents", "triage_pod", "vocab"}

// transports runs the suite over every way a client reaches the server:
// streamable HTTP (as /mcp), newline-delimited JSON over pipes (as
// "casebook mcp" over stdio) and the SDK's in-memory transport.
func TestTransports(t *testing.T) {
	l := loader(t)
	pods := &fakeCluster{}
	s := mcp.NewServer(l, mcp.Options{Version: "test", Log: quiet, Live: liveOver(pods)})

	t.Run("http", func(t *testing.T) {
		srv := httptest.NewServer(mcp.Handler(s, mcp.HTTPOptions{}))
		t.Cleanup(srv.Close)
		cs := connect(t, &sdk.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true})
		suite(t, cs)
	})
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- mcp.ServeIO(ctx, s, inR, outW) }()
		cs := connect(t, &sdk.IOTransport{Reader: outR, Writer: inW})
		suite(t, cs)
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeIO: %v", err)
		}
	})
	t.Run("in-memory", func(t *testing.T) {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		suite(t, connect(t, ct))
	})
}

// suite lists the tools and calls each with good and bad arguments.
func suite(t *testing.T, cs *sdk.ClientSession) {
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s lacks a description, an input schema or an output schema", tool.Name)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	if !slices.Equal(names, allTools) {
		t.Errorf("tools %v, want %v", names, allTools)
	}
	t.Run("valid", func(t *testing.T) { validCalls(t, cs) })
	t.Run("invalid", func(t *testing.T) { invalidCalls(t, cs) })
}

func TestClassifyGPUEvent(t *testing.T) {
	s := mcp.NewServer(loader(t), mcp.Options{Log: quiet})
	st, ct := sdk.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ct)
	paste := "Events:\n  Type     Reason            Age   From               Message\n" +
		"  Warning  FailedScheduling  12s   default-scheduler  " + gpuEvent + "\n"
	for _, in := range []string{gpuEvent, paste} {
		var out mcp.ClassifyOutput
		decode(t, call(t, cs, "classify_error", jsonString("text", in)), &out)
		if len(out.Routes) == 0 {
			t.Fatalf("no routes for %q", in)
		}
		top := out.Routes[0]
		if top.Route != "pending/insufficient-resources" || top.Playbook != "pod-pending" {
			t.Errorf("top route %s (%s), want pending/insufficient-resources (pod-pending)", top.Route, top.Playbook)
		}
		if len(top.Evidence) == 0 || !strings.Contains(top.Evidence[0].Text, gpuEvent) {
			t.Errorf("evidence %+v does not quote the event line", top.Evidence)
		}
		if top.SectionTitle == "" || top.Diagnosis == "" || !strings.HasPrefix(top.URL, "/playbooks/pod-pending#") {
			t.Errorf("route lacks its section title, diagnosis or link: %+v", top)
		}
	}
}

func TestTriagePodOnlyWhenConfigured(t *testing.T) {
	s := mcp.NewServer(loader(t), mcp.Options{Log: quiet})
	st, ct := sdk.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ct)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "triage_pod" {
			t.Fatal("triage_pod is listed without live triage")
		}
	}
}

// TestNotLoaded: a call before the first load is a tool error, not a crash.
func TestNotLoaded(t *testing.T) {
	s := mcp.NewServer(emptySource{}, mcp.Options{Log: quiet})
	st, ct := sdk.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	res := call(t, connect(t, ct), "vocab", `{"text":"gpu"}`)
	if !res.IsError || !strings.Contains(text(res), "still loading") {
		t.Errorf("got %v %q, want a 'still loading' tool error", res.IsError, text(res))
	}
}
