package snapshot

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Quantity is a Kubernetes resource quantity ("500m", "16Gi", "4"). It
// keeps the text it was written as, for evidence, and its value as a
// float64, which is exact for GPU counts and for byte sizes up to 8 PiB;
// triage only compares and adds quantities, it never stores them back.
type Quantity struct {
	text  string
	value float64
}

var suffixes = map[string]float64{
	"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1,
	"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
}

// ParseQuantity reads the forms the API server accepts: a decimal number
// with an optional binary or decimal suffix, or an exponent (1e3). Like
// resource.ParseQuantity it refuses surrounding spaces and reads a bare
// suffix ("Gi") as zero.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, fmt.Errorf("empty quantity")
	}
	num, suf := "", s
	for i := len(s) - 1; i >= 0; i-- {
		if c := s[i]; (c >= '0' && c <= '9') || c == '.' {
			num, suf = s[:i+1], s[i+1:]
			break
		}
	}
	mult, ok := suffixes[suf]
	if !ok {
		// An exponent is part of the number: strconv handles 1e3 and 1E3.
		mult, num = 1, s
	}
	if num == "" {
		return Quantity{text: s}, nil
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(num, "xXpP_ ") {
		return Quantity{}, fmt.Errorf("bad quantity %q", s)
	}
	return Quantity{text: s, value: v * mult}, nil
}

// MustQuantity is ParseQuantity for literals in code and tests.
func MustQuantity(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

// NewQuantity makes a quantity from a value, for sums and differences.
func NewQuantity(v float64) Quantity {
	return Quantity{text: strconv.FormatFloat(v, 'f', -1, 64), value: v}
}

// QuantityOf makes a quantity whose text and value are both known, as the
// cluster reader has them from a resource.Quantity: nothing is parsed.
func QuantityOf(text string, value float64) Quantity {
	return Quantity{text: text, value: value}
}

// Value is the quantity in base units (cores, bytes, devices).
func (q Quantity) Value() float64 { return q.value }

// String is the quantity as written, or its value for computed ones.
func (q Quantity) String() string {
	if q.text == "" {
		return "0"
	}
	return q.text
}

// Human renders a value for a person: bytes in Gi/Mi for memory-like
// resources, plain numbers otherwise.
func (q Quantity) Human(resource string) string {
	if q.text != "" && !isComputed(q.text) {
		return q.text
	}
	v := q.value
	if resource == "memory" || strings.Contains(resource, "storage") || strings.HasPrefix(resource, "hugepages") {
		for _, u := range []struct {
			name string
			size float64
		}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
			if math.Abs(v) >= u.size {
				return strconv.FormatFloat(math.Round(v/u.size*10)/10, 'f', -1, 64) + u.name
			}
		}
	}
	if resource == "cpu" && v != math.Trunc(v) {
		return strconv.FormatFloat(math.Round(v*1000), 'f', -1, 64) + "m"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func isComputed(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, "eE")
}

// MarshalJSON writes the quantity as its text, as kubectl does.
func (q Quantity) MarshalJSON() ([]byte, error) { return json.Marshal(q.String()) }

// UnmarshalJSON reads a quantity string; a malformed one is an error, so a
// hand-edited snapshot file cannot slip a wrong number past the probes.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("quantity must be a string like \"4\" or \"16Gi\"")
	}
	p, err := ParseQuantity(s)
	if err != nil {
		return err
	}
	*q = p
	return nil
}

// ResourceList maps resource names (cpu, memory, nvidia.com/gpu) to
// quantities.
type ResourceList map[string]Quantity

// Get returns the quantity of a resource, zero when absent.
func (r ResourceList) Get(name string) (Quantity, bool) {
	q, ok := r[name]
	return q, ok
}

// Add adds every quantity of o into r.
func (r ResourceList) Add(o ResourceList) {
	for k, v := range o {
		r[k] = NewQuantity(r[k].value + v.value)
	}
}

// Max keeps, per resource, the larger of r and o.
func (r ResourceList) Max(o ResourceList) {
	for k, v := range o {
		if cur, ok := r[k]; !ok || v.value > cur.value {
			r[k] = v
		}
	}
}

// Names lists the resources in r, sorted.
func (r ResourceList) Names() []string {
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// IsExtended reports whether a resource is an extended (device) resource
// rather than one the kubelet accounts itself.
func IsExtended(name string) bool {
	switch name {
	case "cpu", "memory", "ephemeral-storage", "pods", "storage":
		return false
	}
	return !strings.HasPrefix(name, "hugepages-") && !strings.HasPrefix(name, "requests.") && !strings.HasPrefix(name, "limits.")
}

// IsGPUResource reports whether a resource name is a GPU or a GPU slice:
// nvidia.com/gpu, nvidia.com/mig-1g.10gb, amd.com/gpu, gpu.intel.com/i915.
func IsGPUResource(name string) bool {
	return strings.HasPrefix(name, "nvidia.com/") || strings.Contains(name, "gpu")
}
