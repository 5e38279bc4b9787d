package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// Every serve flag must be documented with its environment variable, so
// docs/configuration.md cannot fall behind --help.
func TestConfigurationDocListsEveryFlag(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	// The flags are read from the real --help output.
	var names []string
	var out strings.Builder
	_, _ = parseServeConfig([]string{"--help"}, func(string) string { return "" }, &out)
	for _, line := range strings.Split(out.String(), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "-") {
			names = append(names, strings.Fields(line)[0][1:])
		}
	}
	if len(names) < 8 {
		t.Fatalf("found only %d flags in --help output:\n%s", len(names), out.String())
	}
	for _, n := range names {
		if !strings.Contains(string(doc), "`--"+n+"`") || !strings.Contains(string(doc), envName(n)) {
			t.Errorf("docs/configuration.md does not document --%s (%s)", n, envName(n))
		}
	}
}

func TestEnvironmentSetsFlags(t *testing.T) {
	env := map[string]string{"CASEBOOK_ADDR": "127.0.0.1:9999", "CASEBOOK_RATE_LIMIT": "5", "CASEBOOK_RESTRICT_READS": "true", "CASEBOOK_AUTH_HEADER": "X-Email"}
	c, err := parseServeConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9999" || c.RateLimit != 5 || !c.RestrictReads || c.AuthHeader != "X-Email" {
		t.Errorf("config from env = %+v", c)
	}
	c, err = parseServeConfig([]string{"--addr", "127.0.0.1:1"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || c.Addr != "127.0.0.1:1" {
		t.Errorf("flag should win over env: %+v %v", c, err)
	}
	if _, err := parseServeConfig([]string{"--allow-users", "a@b"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("--allow-users without --auth-header should be refused")
	}
	if _, err := parseServeConfig(nil, func(k string) string { return map[string]string{"CASEBOOK_RATE_LIMIT": "x"}[k] }, io.Discard); err == nil {
		t.Error("a non-numeric CASEBOOK_RATE_LIMIT should be an error")
	}
}

func TestDefaultLang(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		env     string
		want    string
		wantErr bool
	}{
		{nil, "", "en", false},
		{nil, "ko", "ko", false},
		{[]string{"--default-lang", "ko-KR"}, "", "ko", false},
		{[]string{"--default-lang", "en"}, "ko", "en", false},
		{[]string{"--default-lang", "fr"}, "", "", true},
	} {
		c, err := parseServeConfig(tc.args, func(k string) string {
			if k == "CASEBOOK_DEFAULT_LANG" {
				return tc.env
			}
			return ""
		}, io.Discard)
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "--default-lang") {
				t.Errorf("%v env=%q: err = %v, want an error naming --default-lang", tc.args, tc.env, err)
			}
			continue
		}
		if err != nil || string(c.DefaultLang) != tc.want {
			t.Errorf("%v env=%q: lang %q err %v, want %q", tc.args, tc.env, c.DefaultLang, err, tc.want)
		}
	}
}
