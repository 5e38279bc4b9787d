package access

import (
	"errors"
	"testing"
	"time"
)

func TestPolicyAllowed(t *testing.T) {
	p := Policy{Header: "X-Email", Users: []string{"Lead@Corp.io"}, Domains: []string{"@example.com", "Team.ORG"}}
	for id, want := range map[string]bool{
		"sre@example.com": true, "SRE@Example.com": true, " lead@corp.io ": true, "dev@team.org": true,
		"eve@elsewhere.org": false, "": false, "example.com": false, "lead@corp.io.evil": false,
	} {
		if got := p.Allowed(id); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", id, got, want)
		}
	}
	if !(Policy{Header: "X-Email"}).Allowed("anyone@anywhere") {
		t.Error("an empty allow-list must allow any signed-in identity")
	}
	if (Policy{Header: "X-Email"}).Allowed("") {
		t.Error("no identity behind an auth header must be refused")
	}
	if !(Policy{}).Allowed("") {
		t.Error("without an auth header nobody is identified and everyone is allowed")
	}
	err := p.LiveTriage(Caller{Identity: "eve@elsewhere.org"})
	if !errors.Is(err, ErrDenied) || err.Error() != "live triage is limited to allow-listed users" {
		t.Errorf("LiveTriage(eve) = %v", err)
	}
}

// One caller has one bucket whichever door it comes through: the web
// passes the identity as the proxy sent it, MCP as its header holds it.
func TestCallerKey(t *testing.T) {
	same := [][2]Caller{
		{{Identity: "Lead@Corp.io", Addr: "10.0.0.1:5000"}, {Identity: " lead@corp.io", Addr: "10.0.0.9:1"}},
		{{Addr: "192.0.2.7:41000"}, {Addr: "192.0.2.7:41001"}},
		{{Addr: "192.0.2.7"}, {Addr: "192.0.2.7:80"}},
	}
	for _, p := range same {
		if p[0].Key() != p[1].Key() {
			t.Errorf("%+v and %+v have keys %q and %q", p[0], p[1], p[0].Key(), p[1].Key())
		}
	}
	if (Caller{Identity: "a@b.c"}).Key() == (Caller{Addr: "a@b.c"}).Key() {
		t.Error("an identity and an address must not share a key")
	}
}

func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := NewLimiter(6) // a token every ten seconds, a burst of 1
	l.now = func() time.Time { return now }
	a, b := Caller{Identity: "a@b.c"}, Caller{Identity: "other@b.c"}
	if err := l.Take(a, 1); err != nil {
		t.Fatal(err)
	}
	err := l.Take(a, 1)
	var le *Error
	if !errors.Is(err, ErrLimited) || !errors.As(err, &le) || le.RetryAfter != 10 {
		t.Fatalf("second call at once: %v, want ErrLimited after 10 s", err)
	}
	if err := l.Take(b, 1); err != nil {
		t.Errorf("another caller has its own budget: %v", err)
	}
	now = now.Add(10 * time.Second)
	if err := l.Take(a, 1); err != nil {
		t.Errorf("after ten seconds: %v", err)
	}
	// Work charged afterwards leaves a debt: a search that took 2 s costs
	// 20 tokens, of which a debt of ten bursts (10 tokens here) is kept:
	// 110 s at this rate until the next request.
	now = now.Add(time.Minute)
	if err := l.Take(a, 0); err != nil {
		t.Fatal(err)
	}
	l.Charge(a, CostOf(2*time.Second))
	now = now.Add(100 * time.Second)
	if err := l.Take(a, 0); !errors.Is(err, ErrLimited) {
		t.Errorf("100 s into a 110 s debt: %v, want ErrLimited", err)
	}
	now = now.Add(15 * time.Second)
	if err := l.Take(a, 0); err != nil {
		t.Errorf("debt paid back: %v", err)
	}
	var none *Limiter
	if err := none.Take(a, 1); err != nil {
		t.Error("a nil limiter must admit everything")
	}
}

func TestLimiterForgetsIdleCallers(t *testing.T) {
	now := time.Unix(0, 0)
	l := NewLimiter(60)
	l.now = func() time.Time { return now }
	for i := range maxCallers + 500 {
		_ = l.Take(Caller{Addr: "10.0." + string(rune('a'+i%26)) + ":" + time.Duration(i).String()}, 1)
		now = now.Add(time.Millisecond)
	}
	if n := len(l.buckets); n > maxCallers {
		t.Errorf("%d buckets kept, at most %d", n, maxCallers)
	}
}

// Reserve takes the estimated cost before the work, so a second upload
// started beside the first sees it, and refuses a caller past MaxRunning.
func TestReserve(t *testing.T) {
	l := NewLimiter(600) // a burst of 100 tokens
	c := Caller{Addr: "192.0.2.1:1000"}
	var dones []func(float64)
	for range MaxRunning {
		done, err := l.Reserve(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, done)
	}
	if _, err := l.Reserve(c, 1); !errors.Is(err, ErrLimited) {
		t.Fatalf("upload %d at once: %v, want ErrLimited", MaxRunning+1, err)
	}
	dones[0](1)
	done, err := l.Reserve(c, 1)
	if err != nil {
		t.Fatalf("after one finished: %v", err)
	}
	done(0)

	// A large upload reserves a burst's worth: the next one waits.
	l = NewLimiter(60)
	if _, err := l.Reserve(c, l.UploadCost(31<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reserve(c, l.UploadCost(31<<20)); !errors.Is(err, ErrLimited) {
		t.Errorf("a second large upload beside the first: %v, want ErrLimited", err)
	}
}
