package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/web"
)

// config is every setting of the server. Each flag has an environment
// variable (CASEBOOK_ + the flag name in upper case, dashes to underscores);
// a flag on the command line wins over the environment.
type config struct {
	Addr            string
	Libraries       []string
	NoEmbedded      bool
	RestrictLayers  []string
	Data            string
	LogFormat       string
	LogLevel        string
	Dev             bool
	ShutdownTimeout time.Duration
	ShutdownDelay   time.Duration
	AuthHeader      string
	AllowUsers      string
	AllowDomains    string
	RestrictReads   bool
	RateLimit       int
	Kubeconfig      string
	KubeContext     string
	InCluster       bool
	Namespaces      string
	ReadLogs        bool
	ClusterTimeout  time.Duration
	SearchCacheMB   int
	MemoryLimit     memoryLimit
	DefaultLang     i18n.Lang
	AllowedHosts    string
	PublicURL       string
	TrustedProxies  string
	LayerFileMB     int
	// InsecureAnonymousLive lets live triage run without an identity
	// header: anyone who can reach the portal then reads the cluster.
	InsecureAnonymousLive bool
}

// flagEnv registers a string flag and remembers its variable for --help.
type flagSet struct {
	*flag.FlagSet
	getenv func(string) string
	envs   []string
}

func envName(flagName string) string {
	return "CASEBOOK_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (f *flagSet) str(p *string, name, def, usage string) {
	if v := f.getenv(envName(name)); v != "" {
		def = v
	}
	f.StringVar(p, name, def, usage+" (env "+envName(name)+")")
}

func (f *flagSet) boolean(p *bool, name string, def bool, usage string) {
	if v := f.getenv(envName(name)); v != "" {
		def = v == "1" || strings.EqualFold(v, "true") || strings.EqualFold(v, "yes")
	}
	f.BoolVar(p, name, def, usage+" (env "+envName(name)+")")
}

func (f *flagSet) integer(p *int, name string, def int, usage string) error {
	if v := f.getenv(envName(name)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q: not a number", envName(name), v)
		}
		def = n
	}
	f.IntVar(p, name, def, usage+" (env "+envName(name)+")")
	return nil
}

func (f *flagSet) duration(p *time.Duration, name string, def time.Duration, usage string) error {
	if v := f.getenv(envName(name)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s=%q: %v", envName(name), v, err)
		}
		def = d
	}
	f.DurationVar(p, name, def, usage+" (env "+envName(name)+")")
	return nil
}

// defaultDataDir is the user cache dir, so a plain "go run" keeps its
// derived data out of the working tree.
func defaultDataDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "casebook")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "casebook")
	}
	return filepath.Join(os.TempDir(), "casebook")
}

func parseServeConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := &flagSet{FlagSet: flag.NewFlagSet("serve", flag.ContinueOnError), getenv: getenv}
	fs.SetOutput(stderr)
	fs.str(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.libraries(&c.Libraries, libraryUsage)
	if err := layerFileFlag(fs, &c.LayerFileMB); err != nil {
		return c, err
	}
	fs.boolean(&c.NoEmbedded, "no-embedded", false, "leave the embedded public library out: the first --library folder is the bottom layer")
	var restrict string
	fs.str(&restrict, "restrict-layer", "", "comma-separated names of team layers (layer.yaml name) only identities on --allow-users/--allow-domains may read; everyone else sees the library as if they were not loaded. Needs --auth-header and an allow-list")
	fs.str(&c.Data, "data", defaultDataDir(getenv), "folder for derived data (SQLite read model, search index); safe to delete")
	fs.str(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.str(&c.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.boolean(&c.Dev, "dev", false, "serve templates' static files from web/static on disk (development)")
	fs.str(&c.AllowedHosts, "allowed-hosts", "", "comma-separated host names the portal answers to, *.example.com for subdomains, * for any (default: the --addr host and localhost; IP addresses are always answered)")
	fs.str(&c.PublicURL, "public-url", "", "the portal's public address, e.g. https://casebook.example.com, for absolute links (feed, language alternates); its host is allowed too")
	fs.str(&c.TrustedProxies, "trusted-proxies", "", "comma-separated addresses or CIDR prefixes of the reverse proxies in front of the portal; only their X-Forwarded-Proto and X-Forwarded-Host are believed (for absolute links when --public-url is not set)")
	fs.str(&c.AuthHeader, "auth-header", "", "trust this header for the signed-in user's identity (e.g. X-Forwarded-Email behind oauth2-proxy); requests without it are refused")
	fs.str(&c.AllowUsers, "allow-users", "", "comma-separated e-mails allowed to use live triage and to read the --restrict-layer layers (and everything, with --restrict-reads)")
	fs.str(&c.AllowDomains, "allow-domains", "", "comma-separated e-mail domains allowed like --allow-users")
	fs.boolean(&c.RestrictReads, "restrict-reads", false, "apply the allow-list to every page, not only live triage")
	if err := fs.integer(&c.RateLimit, "rate-limit", 60, "budget of expensive work per client per minute, shared by the pages, the API and /mcp: a classify, a live read, a gap run or an upload costs one; searches and uploads a token per 100 ms they take"); err != nil {
		return c, err
	}
	fs.str(&c.Kubeconfig, "kubeconfig", "", "enable live triage with this kubeconfig (read-only use; see deploy/rbac-readonly.yaml)")
	fs.str(&c.KubeContext, "context", "", "kubeconfig context for live triage (default: the current one)")
	fs.boolean(&c.InCluster, "in-cluster", false, "enable live triage with client-go's standard loading rules: $KUBECONFIG, ~/.kube/config, or the pod's service account")
	fs.str(&c.Namespaces, "namespaces", "", "comma-separated namespaces portal users may inspect with live triage (default: any)")
	fs.boolean(&c.ReadLogs, "read-logs", false, "let live triage read previous container logs (needs get pods/log)")
	if err := fs.duration(&c.ClusterTimeout, "cluster-timeout", 10*time.Second, "bound on reading the cluster for one live-triage page"); err != nil {
		return c, err
	}
	fs.boolean(&c.InsecureAnonymousLive, "insecure-allow-anonymous-live-triage", false,
		"allow live triage without --auth-header, so that anyone who can reach the portal reads the cluster through it (a laptop on 127.0.0.1)")
	if err := fs.integer(&c.SearchCacheMB, "search-cache-mb", 32, "memory for cached search answers, in MiB (0 turns the cache off)"); err != nil {
		return c, err
	}
	var memLimit string
	memoryFlag(fs, &memLimit)
	var defaultLang string
	fs.str(&defaultLang, "default-lang", "en", "language of pages for a browser that names neither en nor ko and has not chosen one: en or ko")
	if err := fs.duration(&c.ShutdownDelay, "shutdown-delay", 0, "on SIGTERM, how long to keep serving with /readyz at 503 before closing the listener, so load balancers stop sending requests first (the chart sets 5s)"); err != nil {
		return c, err
	}
	if err := fs.duration(&c.ShutdownTimeout, "shutdown-timeout", 15*time.Second, "how long to wait for requests in flight on SIGTERM, after --shutdown-delay"); err != nil {
		return c, err
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: casebook [serve] [flags]\n\nRuns the Casebook portal. Other commands: lint, triage, export, mcp (see \"casebook help\").\nEvery flag can also be set by its environment variable.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return c, errHelp
		}
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	lang, err := i18n.Parse(defaultLang)
	if err != nil {
		return c, fmt.Errorf("--default-lang: %w", err)
	}
	c.DefaultLang = lang
	if c.MemoryLimit, err = parseMemoryFlag(memLimit); err != nil {
		return c, err
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return c, fmt.Errorf("--log-format must be text or json, not %q", c.LogFormat)
	}
	if (c.Kubeconfig != "" || c.InCluster) && c.AuthHeader == "" && !c.InsecureAnonymousLive {
		return c, fmt.Errorf("live triage (--kubeconfig or --in-cluster) needs --auth-header: without it anyone who can reach the portal " +
			"reads the cluster through it; put the portal behind a sign-in proxy and set --auth-header, or accept that with " +
			"--insecure-allow-anonymous-live-triage")
	}
	if (c.AllowUsers != "" || c.AllowDomains != "" || c.RestrictReads) && c.AuthHeader == "" {
		return c, fmt.Errorf("--allow-users, --allow-domains and --restrict-reads need --auth-header: without it no identity is known")
	}
	if _, err := web.ParsePublicURL(c.PublicURL); err != nil {
		return c, fmt.Errorf("--public-url: %w", err)
	}
	if _, err := web.ParseProxies(c.TrustedProxies); err != nil {
		return c, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if _, err := libraryLayers(c.Libraries, c.NoEmbedded, c.layerFileLimit()); err != nil {
		return c, err
	}
	c.RestrictLayers = splitList(restrict)
	if len(c.RestrictLayers) > 0 && c.AuthHeader == "" {
		return c, fmt.Errorf("--restrict-layer needs --auth-header: without a signed-in identity nobody can be told apart from the public")
	}
	for _, name := range c.RestrictLayers {
		if name == library.PublicLayer {
			return c, fmt.Errorf("--restrict-layer %s: the public library cannot be restricted; use --restrict-reads to limit the whole portal", name)
		}
	}
	if err := checkRestrict(c); err != nil {
		return c, err
	}
	return c, nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// allowedHosts is the host allow-list: --allowed-hosts, else the --addr
// host when it is a name, and localhost; the --public-url host is always
// on it.
func allowedHosts(c config) []string {
	hosts := splitList(c.AllowedHosts)
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
		if h, _, err := net.SplitHostPort(c.Addr); err == nil && h != "" && net.ParseIP(h) == nil && h != "localhost" {
			hosts = append(hosts, h)
		}
	}
	if u, _ := web.ParsePublicURL(c.PublicURL); u != nil {
		hosts = append(hosts, u.Hostname())
	}
	return hosts
}
