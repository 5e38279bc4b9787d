package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	deflib "casebook/library"

	"casebook/internal/cluster"
	"casebook/internal/content"
	"casebook/internal/mcp"
	"casebook/internal/snapshot"
)

// fileCluster answers Collect from snapshot files, by pod name.
type fileCluster map[string]*snapshot.Snapshot

func (f fileCluster) Collect(_ context.Context, ns, pod string) (*snapshot.Snapshot, error) {
	if ns == "forbidden" {
		return nil, fmt.Errorf("%w: %q", cluster.ErrNamespaceNotAllowed, ns)
	}
	s, ok := f[pod]
	if !ok {
		return nil, cluster.ErrNotFound
	}
	return s, nil
}

// TestLivePods walks the snapshots the snapshot package keeps as fixtures
// through triage_pod's adapter: every one ends at a route or a question.
func TestLivePods(t *testing.T) {
	files, _ := filepath.Glob("../../internal/probe/testdata/*.json")
	if len(files) == 0 {
		t.Skip("no snapshot fixtures")
	}
	pods := fileCluster{}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		snaps, err := snapshot.Decode(r)
		r.Close()
		if err != nil || len(snaps) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		pods[strings.TrimSuffix(filepath.Base(f), ".json")] = &snaps[0]
	}
	loader := content.NewLoader(deflib.FS, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(loader.Close)
	if _, err := loader.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	live := livePods{cluster: pods, src: loader}
	routes := 0
	for name := range pods {
		res, err := live.TriagePod(context.Background(), mcp.PodRequest{Namespace: "ml", Pod: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.Route == "" && res.Ask == nil {
			t.Errorf("%s: neither a route nor a question: %+v", name, res)
		}
		if res.Route != "" {
			routes++
		}
	}
	if routes == 0 {
		t.Error("no fixture reached a route")
	}
	for ns, want := range map[string]string{"forbidden": "not open to live triage", "ml": "no pod"} {
		_, err := live.TriagePod(context.Background(), mcp.PodRequest{Namespace: ns, Pod: "absent"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("namespace %s: err %v, want %q", ns, err, want)
		}
	}
}
