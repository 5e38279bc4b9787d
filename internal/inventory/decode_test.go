package inventory

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"casebook/internal/snapshot"
)

func TestDecodeRejects(t *testing.T) {
	head := `{"version":1,"kind":"Inventory","collectedAt":"2026-03-01T00:00:00Z",`
	tests := []struct{ name, body, want string }{
		{"not json", "hello", "not a JSON object"},
		{"a snapshot", `{"version":1,"target":{"namespace":"a","name":"b"}}`, `"kind" is ""`},
		{"future version", `{"version":2,"kind":"Inventory"}`, "version 2"},
		{"no version", `{"kind":"Inventory"}`, "version missing"},
		{"unknown field", head + `"secrets":[]}`, `unknown field "secrets"`},
		{"nameless node", head + `"nodes":[{}]}`, "nodes[0] needs a name"},
		{"pod without namespace", head + `"pods":[{"name":"p"}]}`, "pods[0] needs a name and a namespace"},
		{"bad quantity", head + `"nodes":[{"name":"n","allocatable":{"cpu":"lots"}}]}`, `bad quantity "lots"`},
		{"unknown kind read", head + `"reads":[{"kind":"secrets","count":1}]}`, `reads[0]: unknown kind "secrets"`},
		{"unknown error kind", head + `"reads":[{"kind":"nodes","count":0,"errors":[{"what":"list nodes","kind":"oops","permission":{"verb":"list","resource":"nodes"}}]}]}`, `unknown kind "oops"`},
		{"two values", head + `"nodes":[]} {}`, "after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	inv := &Inventory{Version: Version, Kind: Kind, CollectedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Nodes: []Node{{Name: "gpu-1", Labels: map[string]string{"nvidia.com/gpu.present": "true"},
			Taints:      []snapshot.Taint{{Key: "nvidia.com/gpu", Effect: "NoSchedule"}},
			Allocatable: snapshot.ResourceList{"nvidia.com/gpu": snapshot.MustQuantity("8"), "memory": snapshot.MustQuantity("512Gi")}}},
		Webhooks: []Webhook{{ConfigKind: "ValidatingWebhookConfiguration", ConfigName: "opa", Name: "v.opa", FailurePolicy: "Fail",
			NamespaceSelector: LabelSelector{MatchExpressions: []snapshot.Requirement{{Key: "team", Operator: "In", Values: []string{"a"}}}}}},
		Reads: []KindRead{{Kind: "nodes", Count: 1}, {Kind: "webhooks", Count: 1}},
	}
	var a bytes.Buffer
	if err := Encode(&a, inv); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_ = Encode(&b, back)
	if a.String() != b.String() {
		t.Errorf("changed in a round trip:\n%s\n%s", a.String(), b.String())
	}
	if r, ok := back.Read("nodes"); !ok || r.Count != 1 {
		t.Errorf("Read(nodes) = %+v, %v", r, ok)
	}
}
