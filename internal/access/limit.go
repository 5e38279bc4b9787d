package access

import (
	"casebook/internal/i18n"
	"errors"
	"math"
	"strconv"
	"sync"
	"time"
)

// ErrLimited is returned when a caller has spent its budget; the Error
// carries how long to wait.
var ErrLimited = errors.New("rate limited")

// Limiter is a token bucket per caller for the expensive work: classifying
// a paste, reading the cluster, parsing an upload, and searches that turn
// out costly. Each caller may spend PerMinute tokens a minute with a burst
// of a sixth of that. Work whose cost is known only afterwards (a search,
// an upload) is charged when it is done and may leave the bucket in debt,
// which refuses the caller's next request until it is paid back; a request
// is admitted while the caller holds at least one token.
type Limiter struct {
	mu      sync.Mutex
	perMin  int
	burst   float64
	buckets map[string]*bucket
	now     func() time.Time
	// running counts each caller's reserved work still running.
	running map[string]int
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxCallers bounds the buckets kept; idle ones are forgotten first.
const maxCallers = 10000

// NewLimiter allows perMin tokens per caller per minute (0 = 60).
func NewLimiter(perMin int) *Limiter {
	if perMin <= 0 {
		perMin = 60
	}
	return &Limiter{perMin: perMin, burst: float64(max(1, perMin/6)), buckets: map[string]*bucket{}, now: time.Now, running: map[string]int{}}
}

// Take admits a request of the caller that costs cost tokens (1 for a
// classify or a cluster read; 0 for work charged afterwards), or refuses
// it with an *Error of kind ErrLimited while the caller holds less than
// one token. A nil Limiter admits everything (a one-user stdio session).
func (l *Limiter) Take(c Caller, cost float64) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.take(c.Key(), cost)
}

// take is Take; l.mu held.
func (l *Limiter) take(key string, cost float64) error {
	b := l.bucket(key)
	if b.tokens < 1 {
		wait := int(math.Ceil((1 - b.tokens) * 60 / float64(l.perMin)))
		m := i18n.M("live.limited", "per_min", strconv.Itoa(l.perMin), "wait", strconv.Itoa(max(1, wait)))
		return &Error{Kind: ErrLimited, RetryAfter: max(1, wait), Msg: m.English(), M: m}
	}
	b.tokens = max(b.tokens-cost, -10*l.burst) // a debt is paid back within minutes
	return nil
}

// Charge adds the cost of work already done (see CostOf), so an expensive
// caller waits longer before the next request. It never refuses.
func (l *Limiter) Charge(c Caller, cost float64) {
	if l == nil || cost <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(c.Key())
	b.tokens = max(b.tokens-cost, -10*l.burst)
}

// bucket returns the caller's bucket refilled to now; l.mu held.
func (l *Limiter) bucket(key string) *bucket {
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= maxCallers {
			l.forgetIdle(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Minutes()*float64(l.perMin))
	b.at = now
	return b
}

// forgetIdle drops full buckets (callers idle long enough to have paid
// back everything), and if none is full, the oldest half.
func (l *Limiter) forgetIdle(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Minutes()*float64(l.perMin) >= l.burst {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) < maxCallers {
		return
	}
	n := 0
	for k := range l.buckets {
		delete(l.buckets, k)
		if n++; n >= maxCallers/2 {
			return
		}
	}
}

// CostOf is what work that took d costs: a token per 100 ms, so a search
// or an upload of ordinary size is nearly free and one that burns seconds
// of CPU spends what many small requests would.
func CostOf(d time.Duration) float64 { return d.Seconds() * 10 }

// MaxRunning is how many reserved pieces of work (uploads) one caller may
// have running at once; one more is refused with ErrLimited.
const MaxRunning = 2

// Reserve admits work of the caller whose cost is known only roughly
// before it starts (an upload, by its size): est is taken from the bucket
// now, so concurrent requests see it at once, and a caller already running
// MaxRunning pieces of work is refused. Call done with the work's actual
// cost when it ends: what it cost beyond est is charged then. A nil
// Limiter admits everything.
func (l *Limiter) Reserve(c Caller, est float64) (done func(actual float64), err error) {
	if l == nil {
		return func(float64) {}, nil
	}
	key := c.Key()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[key] >= MaxRunning {
		m := i18n.M("live.busy", "max", strconv.Itoa(MaxRunning))
		return nil, &Error{Kind: ErrLimited, RetryAfter: 1, Msg: m.English(), M: m}
	}
	if err := l.take(key, est); err != nil {
		return nil, err
	}
	l.running[key]++
	var once sync.Once
	return func(actual float64) {
		once.Do(func() {
			l.mu.Lock()
			if l.running[key]--; l.running[key] <= 0 {
				delete(l.running, key)
			}
			l.mu.Unlock()
			l.Charge(c, actual-est)
		})
	}, nil
}

// UploadCost is the cost reserved for an upload of n bytes before it is
// read: a token per MiB, at least one and at most a burst's worth, so a
// second large upload waits for the first to be paid back.
func (l *Limiter) UploadCost(n int64) float64 {
	if l == nil {
		return 0
	}
	return min(max(1, float64(n)/(1<<20)), l.burst)
}
