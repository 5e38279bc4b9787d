package gaps

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"casebook/internal/inventory"
	"casebook/internal/snapshot"
	"casebook/library"
)

func loadShipped(t *testing.T) *Set {
	t.Helper()
	set, problems := Load(library.FS)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return set
}

// A check whose read failed, or was cut short with nothing found, is an
// error naming why; never a pass.
func TestRunNeverPassesWhatItCouldNotRead(t *testing.T) {
	set := loadShipped(t)
	inv := newInventory(with(func(i *inventory.Inventory) {
		for k := range i.Reads {
			switch i.Reads[k].Kind {
			case "webhooks":
				i.Reads[k].Errors = []snapshot.ReadError{{What: "list validatingwebhookconfigurations", Kind: snapshot.ReadForbidden,
					Permission: snapshot.Permission{Verb: "list", Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}}}
			case "pods":
				i.Reads[k].Truncated, i.Reads[k].Count = true, 5000
			case "jobs":
				i.Reads[k].Errors = []snapshot.ReadError{{What: "list jobs", Kind: snapshot.ReadTimeout, Message: "context deadline exceeded"}}
			}
		}
	}))
	rep := set.Run(context.Background(), inv, Limits{})
	for id, want := range map[string]string{
		"webhook-fail-intercepts-kube-system": "missing permission list validatingwebhookconfigurations.admissionregistration.k8s.io",
		"webhook-ca-bundle-expiring":          "missing permission list validatingwebhookconfigurations",
		"replicas-on-one-node":                "incomplete: pods stopped at the object limit (5000 read)",
		"job-without-limits-or-deadline":      "could not list jobs (timeout)",
	} {
		r, _ := rep.Result(id)
		if r.Status != StatusError || !strings.Contains(r.Error, want) {
			t.Errorf("%s: status %s error %q, want error containing %q", id, r.Status, r.Error, want)
		}
	}
	if r, _ := rep.Result("single-control-plane-node"); r.Status != StatusPassed {
		t.Errorf("an unrelated check: %s %s", r.Status, r.Error)
	}
	// An inventory that does not say a kind was read proves nothing.
	inv.Reads = nil
	if r, _ := set.Run(context.Background(), inv, Limits{}).Result("coredns-single-replica"); r.Status != StatusError {
		t.Errorf("no reads recorded: %s", r.Status)
	}
}

func TestRunErrorsAndLimits(t *testing.T) {
	src := func(cond string) fstest.MapFS {
		return fstest.MapFS{"checks/x.yaml": {Data: []byte("id: x\ntitle: T\nseverity: low\nkinds: [nodes]\neach: nodes\ncondition: >-\n  " + cond +
			"\nmessage: '{count}: {objects}'\nincidents: [IL-0001]\nfix: f\n")}}
	}
	inv := newInventory(with(func(i *inventory.Inventory) {
		for n := range 30 {
			i.Nodes = append(i.Nodes, node(string(rune('a'+n%26))+"-node", nil, nil))
		}
	}))
	t.Run("evaluation error is an error", func(t *testing.T) {
		set, _ := Load(src(`object.labels["missing"] == "x"`))
		r := set.Run(context.Background(), inv, Limits{}).Results[0]
		if r.Status != StatusError || !strings.Contains(r.Error, "no such key") || !strings.Contains(r.Error, "node/a-node") {
			t.Fatalf("%s %q", r.Status, r.Error)
		}
	})
	t.Run("object limit", func(t *testing.T) {
		set, _ := Load(src(`object.name == "zz"`))
		r := set.Run(context.Background(), inv, Limits{MaxObjects: 10}).Results[0]
		if r.Status != StatusError || !strings.Contains(r.Error, "evaluated the first 10 of 30 nodes") {
			t.Fatalf("%s %q", r.Status, r.Error)
		}
		set, _ = Load(src(`true`))
		r = set.Run(context.Background(), inv, Limits{MaxListed: 3}).Results[0]
		if r.Status != StatusFound || r.Count != 30 || len(r.Objects) != 3 || !strings.HasPrefix(r.Message, "30: node/a-node") || !strings.Contains(r.Message, "and 25 more") {
			t.Fatalf("%s count %d listed %d message %q", r.Status, r.Count, len(r.Objects), r.Message)
		}
	})
	t.Run("time limit", func(t *testing.T) {
		set, _ := Load(src(`[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, a+b+c+d > 0))))`))
		r := set.Run(context.Background(), inv, Limits{CheckTimeout: time.Microsecond}).Results[0]
		if r.Status != StatusError || !strings.Contains(r.Error, "time limit") {
			t.Fatalf("%s %q", r.Status, r.Error)
		}
	})
}

func TestFailsAt(t *testing.T) {
	rep := &Report{Results: []Result{{Severity: Medium, Status: StatusFound}, {Severity: High, Status: StatusPassed}, {Severity: Low, Status: StatusError}}}
	for sev, want := range map[Severity]bool{Critical: false, High: false, Medium: true, Low: true} {
		if got := rep.FailsAt(sev); got != want {
			t.Errorf("FailsAt(%s) = %v, want %v", sev, got, want)
		}
	}
}
