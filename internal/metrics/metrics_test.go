package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// The memory limit in force is on /metrics, 0 when there is none, as a
// scraper reads it.
func TestMemoryLimitGauge(t *testing.T) {
	for _, tc := range []struct {
		bytes int64
		want  string
	}{
		{0, "casebook_memory_limit_bytes 0\n"},
		{429496729, "casebook_memory_limit_bytes 4.29496729e+08\n"},
		{220 << 20, "casebook_memory_limit_bytes 2.3068672e+08\n"},
	} {
		m := New()
		m.MemoryLimit(tc.bytes)
		srv := httptest.NewServer(m.Handler())
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if !strings.Contains(string(body), "# TYPE casebook_memory_limit_bytes gauge\n") || !strings.Contains(string(body), tc.want) {
			t.Errorf("MemoryLimit(%d): /metrics lacks %q:\n%s", tc.bytes, tc.want, grep(string(body), "casebook_memory"))
		}
	}
}

func grep(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
