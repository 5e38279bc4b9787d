package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The whole server on a public library and a team's layer, each watched on
// its own: a broken team file is left out and named with its layer while
// every other entry serves; a team layer that becomes unusable keeps its
// previous version; fixing the file brings it back.
func TestBrokenTeamFileLeavesTheRestServing(t *testing.T) {
	pub, team, data := t.TempDir(), filepath.Join(t.TempDir(), "acme"), t.TempDir()
	copyDir(t, filepath.Join(fixtures, "good"), pub)
	copyDir(t, filepath.Join(fixtures, "layers", "acme"), team)
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs)
		}
	})
	base := hardStartWith(t, noEnv, logs, "--no-embedded", "--library", pub, "--library", team, "--data", data,
		"--addr", "127.0.0.1:0", "--shutdown-timeout", "5s").URL

	client := &http.Client{Timeout: 10 * time.Second}
	status := func(path string) int {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	type problem struct {
		Path, Message, Layer string
	}
	problems := func() []problem {
		resp, err := client.Get(base + "/api/problems")
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var body struct{ Problems []problem }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return body.Problems
	}
	problemOf := func(file string) *problem {
		for _, p := range problems() {
			if strings.Contains(p.Path, file) {
				return &p
			}
		}
		return nil
	}
	serving := func(want map[string]int) func() bool {
		return func() bool {
			for path, code := range want {
				if status(path) != code {
					return false
				}
			}
			return true
		}
	}

	eventually(t, 30*time.Second, "both layers serve", serving(map[string]int{
		"/incidents/IL-9001": 200, "/incidents/ACME-0001": 200, "/incidents/ACME-0002": 200}))

	// A broken team incident: left out and named, with its layer.
	broken := filepath.Join(team, "incidents", "ACME-0002-driver-upgrade-stalled.md")
	good, err := os.ReadFile(broken)
	if err != nil {
		t.Fatal(err)
	}
	write(t, broken, strings.Replace(string(good), "id: ACME-0002", "id: [ACME-0002", 1))
	eventually(t, 30*time.Second, "the broken team incident is left out", serving(map[string]int{"/incidents/ACME-0002": 404}))
	if p := problemOf("ACME-0002-driver-upgrade-stalled.md"); p == nil || p.Layer != "acme" {
		t.Errorf("/api/problems names the broken file as %+v, want it with layer acme", p)
	}
	for _, path := range []string{"/incidents/IL-9001", "/incidents/IL-9002", "/incidents/ACME-0001", "/"} {
		if code := status(path); code != 200 {
			t.Errorf("GET %s = %d while a team file is broken, want 200", path, code)
		}
	}

	// The team's layer.yaml becomes unparsable: the layer's previous
	// version keeps serving, and so does the public library.
	layerFile := filepath.Join(team, "layer.yaml")
	layerYAML, err := os.ReadFile(layerFile)
	if err != nil {
		t.Fatal(err)
	}
	write(t, layerFile, "name: [acme\n")
	eventually(t, 30*time.Second, "the unusable layer is reported", func() bool {
		p := problemOf("layer.yaml")
		return p != nil && strings.Contains(p.Message, "previous version keeps serving")
	})
	for _, path := range []string{"/incidents/IL-9001", "/incidents/ACME-0001"} {
		if code := status(path); code != 200 {
			t.Errorf("GET %s = %d while the team's layer.yaml is broken, want 200", path, code)
		}
	}

	// Fixed: everything is back, with no problem left for the team.
	write(t, layerFile, string(layerYAML))
	write(t, broken, string(good))
	eventually(t, 30*time.Second, "the fixed team incident serves again", serving(map[string]int{"/incidents/ACME-0002": 200}))
	eventually(t, 30*time.Second, "no problem left for the fixed files", func() bool {
		return problemOf("ACME-0002-driver-upgrade-stalled.md") == nil && problemOf("layer.yaml") == nil
	})
}
