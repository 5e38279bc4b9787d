package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"casebook/internal/triage"
)

func TestRunClassify(t *testing.T) {
	cat, problems := triage.Load(os.DirFS("../../library"))
	for _, p := range problems {
		t.Fatalf("load: %s", p)
	}
	paste := "Events:\n  Warning  FailedScheduling  1m  default-scheduler  0/5 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}, 3 node(s) didn't match Pod's node affinity/selector.\n"
	file := filepath.Join(t.TempDir(), "describe.txt")
	if err := os.WriteFile(file, []byte(paste), 0o600); err != nil {
		t.Fatal(err)
	}

	run := func(stdin string, args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := runClassify(context.Background(), args, strings.NewReader(stdin), &out, &errOut, cat, nil)
		return out.String(), errOut.String(), err
	}

	t.Run("text from stdin", func(t *testing.T) {
		out, _, err := run(paste)
		if err != nil {
			t.Fatal(err)
		}
		first := strings.SplitN(out, "\n", 2)[0]
		if !strings.HasPrefix(first, "pending/untolerated-taint") || !strings.Contains(first, "pod-pending#cause-c-untolerated-taint") {
			t.Errorf("first line %q", first)
		}
		if !strings.Contains(out, "line 2 [sched-taint-keyed]") {
			t.Errorf("no evidence line in\n%s", out)
		}
	})
	t.Run("json from a file, flag after the name", func(t *testing.T) {
		out, _, err := run("", file, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Routes []struct {
				Route    string `json:"route"`
				Evidence []struct {
					Signal string `json:"signal"`
					Line   string `json:"line"`
					LineNo int    `json:"line_no"`
				} `json:"evidence"`
			} `json:"routes"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if res.Routes[0].Route != "pending/untolerated-taint" || res.Routes[0].Evidence[0].LineNo != 2 {
			t.Errorf("got %+v", res.Routes[0])
		}
	})
	t.Run("nothing matched", func(t *testing.T) {
		out, _, err := run("all pods are Running\n")
		if err != nil || !strings.Contains(out, "no route") {
			t.Errorf("out %q, err %v", out, err)
		}
		out, _, err = run("all pods are Running\n", "-json")
		if err != nil || strings.TrimSpace(out) != `{"routes":[],"match":"none","related":[],"redacted":0}` {
			t.Errorf("out %q, err %v", out, err)
		}
	})
	t.Run("an unknown error ends in the library", func(t *testing.T) {
		var out, errOut bytes.Buffer
		text := "Warning: php_network_getaddresses: getaddrinfo for db-primary.payments failed: Try again\n" +
			"the resolver in the cluster (CoreDNS) answered nothing\n"
		open := relatedSearch("../../library", func(k string) string {
			if k == "CASEBOOK_DATA" {
				return t.TempDir()
			}
			return ""
		})
		if err := runClassify(context.Background(), nil, strings.NewReader(text), &out, &errOut, cat, open); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "In the library:") || !strings.Contains(out.String(), "/incidents/IL-") {
			t.Errorf("no related incidents in\n%s\n%s", out.String(), errOut.String())
		}
	})
	t.Run("prose is searched as the search box searches it", func(t *testing.T) {
		var out, errOut bytes.Buffer
		open := relatedSearch("../../library", func(k string) string {
			if k == "CASEBOOK_DATA" {
				return t.TempDir()
			}
			return ""
		})
		if err := runClassify(context.Background(), nil, strings.NewReader("GPU 노드에 파드가 안 올라가요\n"), &out, &errOut, cat, open); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); strings.Contains(got, "no route") || !strings.Contains(got, "/playbooks/gpu-workload-not-scheduled") {
			t.Errorf("prose not answered by the search:\n%s\n%s", got, errOut.String())
		}
	})
	t.Run("empty input", func(t *testing.T) {
		if _, _, err := run("  \n"); err == nil {
			t.Error("no error")
		}
	})
	t.Run("too large", func(t *testing.T) {
		if _, _, err := run(strings.Repeat("x", triage.MaxInput+1)); err == nil {
			t.Error("no error")
		}
	})
	t.Run("two files", func(t *testing.T) {
		if _, _, err := run("", file, file); err != exitCode(2) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, _, err := run("", filepath.Join(t.TempDir(), "nope")); err == nil {
			t.Error("no error")
		}
	})
}
