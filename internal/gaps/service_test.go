package gaps

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"casebook/internal/inventory"
	"casebook/library"
)

func TestServiceCachesAndReloads(t *testing.T) {
	set := loadSet(t)
	reads := 0
	s := NewService(ServiceOptions{
		Checks: func() *Set { return set },
		Collect: func(context.Context) (*inventory.Inventory, error) {
			reads++
			return newInventory(with(func(i *inventory.Inventory) {
				i.Nodes = []inventory.Node{node("cp-1", labels("node-role.kubernetes.io/control-plane", ""), nil)}
			})), nil
		},
		TTL: time.Minute,
	})
	now := time.Unix(0, 0)
	s.now = func() time.Time { return now }
	ctx := context.Background()
	for range 3 {
		rep, err := s.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := rep.Result("single-control-plane-node"); r.Status != StatusFound {
			t.Fatalf("%+v", r)
		}
	}
	if reads != 1 {
		t.Fatalf("%d reads within the TTL, want 1", reads)
	}
	now = now.Add(2 * time.Minute)
	s.Run(ctx)
	set = loadSet(t) // a library reload hands out new checks and drops the cache
	s.Run(ctx)
	if reads != 3 {
		t.Fatalf("%d reads, want 3", reads)
	}
	if got := set.For("IL-0138"); len(got) != 1 || got[0].ID != "single-control-plane-node" {
		t.Fatalf("checks for IL-0138: %v", got)
	}
}

func TestServiceWithoutCluster(t *testing.T) {
	set := loadSet(t)
	s := NewService(ServiceOptions{Checks: func() *Set { return set }})
	if _, err := s.Run(context.Background()); !errors.Is(err, ErrNoCluster) || s.Live() {
		t.Fatalf("err %v live %v", err, s.Live())
	}
	f, err := os.Open("testdata/planted.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := s.RunFile(context.Background(), "planted.json", f)
	if err != nil {
		t.Fatal(err)
	}
	if found, _, errs := rep.Counts(); found != 23 || errs != 0 {
		t.Fatalf("found %d errors %d", found, errs)
	}
	if _, err := s.RunFile(context.Background(), "x", strings.NewReader(`{"version":1,"kind":"Inventory","nodes":[{}]}`)); err == nil {
		t.Fatal("a nameless node must be refused")
	}
}

func TestServiceBeforeALibraryLoads(t *testing.T) {
	s := NewService(ServiceOptions{Checks: func() *Set { return nil }, Collect: func(context.Context) (*inventory.Inventory, error) {
		t.Fatal("the cluster was read without checks to run")
		return nil, nil
	}})
	if _, err := s.Run(context.Background()); !errors.Is(err, ErrNoChecks) {
		t.Fatalf("err %v, want ErrNoChecks", err)
	}
}

func loadSet(t *testing.T) *Set {
	t.Helper()
	set, problems := Load(library.FS)
	if len(problems) > 0 {
		t.Fatalf("library checks have problems: %v", problems)
	}
	return set
}
