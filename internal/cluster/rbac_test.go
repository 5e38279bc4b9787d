package cluster_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// readsInSource lists "group/resource" of every read the reader's source
// names: the permission each read records (perm(...)) and the custom
// resources it lists by GroupVersionResource. Discovery paths (/version,
// /apis/...) are open to every authenticated user and need no rule.
func readsInSource(t *testing.T) map[string]bool {
	t.Helper()
	permCall := regexp.MustCompile(`perm\("([a-z]+)", "([^"]*)", "([^"/][^"]*)"`)
	gvr := regexp.MustCompile(`GroupVersionResource\{Group: "([^"]+)", Version: "[^"]+", Resource: "([^"]+)"\}`)
	files, _ := filepath.Glob("*.go")
	out := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range permCall.FindAllStringSubmatch(string(b), -1) {
			if !slices.Contains([]string{"get", "list"}, m[1]) {
				t.Errorf("%s: a read with verb %q", f, m[1])
			}
			out[m[2]+"/"+m[3]] = true
		}
		for _, m := range gvr.FindAllStringSubmatch(string(b), -1) {
			out[m[1]+"/"+m[2]] = true
		}
	}
	return out
}

// TestShippedRoleMatchesReads checks deploy/rbac-readonly.yaml against the
// reader's source: the read-only role allows every resource the reader
// reads and nothing it does not, with get, list and watch only, never
// Secrets or ConfigMaps; the logs role allows get pods/log and nothing
// else.
func TestShippedRoleMatchesReads(t *testing.T) {
	f, err := os.Open("../../deploy/rbac-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	roles := map[string]*rbacv1.ClusterRole{}
	dec := utilyaml.NewYAMLReader(bufioReader(f))
	for {
		doc, err := dec.Read()
		if errors.Is(err, errEOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(stripComments(string(doc))) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := obj.(*rbacv1.ClusterRole); ok {
			roles[r.Name] = r
		}
	}
	granted := func(name string, verbs []string) map[string]bool {
		r := roles[name]
		if r == nil {
			t.Fatalf("no ClusterRole %s", name)
		}
		out := map[string]bool{}
		for _, rule := range r.Rules {
			if !slices.Equal(rule.Verbs, verbs) || len(rule.ResourceNames) > 0 || len(rule.NonResourceURLs) > 0 {
				t.Errorf("%s: rule %v: want verbs %v on whole resources only", name, rule, verbs)
			}
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					if res == "*" || g == "*" || res == "secrets" || res == "configmaps" {
						t.Errorf("%s grants %s in group %q", name, res, g)
					}
					out[g+"/"+res] = true
				}
			}
		}
		return out
	}
	reads := readsInSource(t)
	role := granted("casebook-readonly", []string{"get", "list", "watch"})
	logs := granted("casebook-read-logs", []string{"get"})
	if want := map[string]bool{"/pods/log": true}; !mapsEqual(logs, want) {
		t.Errorf("casebook-read-logs grants %v, want only get pods/log", keys(logs))
	}
	delete(reads, "/pods/log")
	for r := range reads {
		if !role[r] {
			t.Errorf("the reader reads %s but casebook-readonly does not allow it", r)
		}
	}
	for r := range role {
		if !reads[r] {
			t.Errorf("casebook-readonly allows %s, which the reader never reads", r)
		}
	}
	if t.Failed() {
		t.Logf("reads: %v", keys(reads))
	}
}

func mapsEqual(a, b map[string]bool) bool { return slices.Equal(keys(a), keys(b)) }

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
