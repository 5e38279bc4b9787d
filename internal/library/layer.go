package library

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// A library is a stack of layers: the public library at the bottom, then
// each team's own folder of incidents, playbooks, terms, triage additions
// and checks. A team layer names itself in layer.yaml at its root; a folder
// without layer.yaml is a public library and can only be the bottom layer
// (so "--library ./library" still serves the public library from disk).

// LayerFile is the file at a team layer's root that names the layer.
const LayerFile = "layer.yaml"

// The public layer's name and incident-id prefix.
const (
	PublicLayer  = "public"
	PublicPrefix = "IL"
)

// LayerInfo describes one layer, from its layer.yaml.
type LayerInfo struct {
	// Name is how pages, the API and the Source facet name the layer.
	Name string `json:"name"`
	// Description says whose content it is, for the Source facet's title.
	Description string `json:"description,omitempty"`
	// Prefix starts every incident id of the layer (ACME for ACME-0007),
	// so a team's ids never collide with the public IL- ids.
	Prefix string `json:"prefix"`
	// EditURL is a template for the page of a file in the layer's Git
	// host, with {path} standing for the file's path inside the layer:
	// https://git.example.com/acme/casebook/-/edit/main/library/{path}.
	EditURL string `json:"edit_url,omitempty"`
	// Organization is the team's organisation, written into new
	// incidents the scaffolder and the wizard draft for the layer.
	Organization string `json:"organization,omitempty"`
	// Path is the layer.yaml the info was read from ("" for a public
	// library, which has none).
	Path string `json:"-"`
}

// Public reports whether the layer is the public library.
func (i LayerInfo) Public() bool { return i.Name == PublicLayer }

// Edit returns the URL of a file of the layer in its Git host, or "" when
// the layer has no edit URL template.
func (i LayerInfo) Edit(p string) string {
	if i.EditURL == "" || p == "" {
		return ""
	}
	return strings.ReplaceAll(i.EditURL, "{path}", (&url.URL{Path: p}).EscapedPath())
}

// IncidentPattern is the id pattern of the layer's incidents: the prefix,
// then four digits, or five or six without a leading zero.
func (i LayerInfo) IncidentPattern() *regexp.Regexp {
	if i.Prefix == PublicPrefix {
		return incidentPattern
	}
	return regexp.MustCompile(`^` + regexp.QuoteMeta(i.Prefix) + `-(\d{4}|[1-9]\d{4,5})$`)
}

// IncidentID formats the layer's incident id with number n (ACME-0007).
func (i LayerInfo) IncidentID(n int) string { return fmt.Sprintf("%s-%04d", i.Prefix, n) }

// PublicInfo is the info of the public library, which has no layer.yaml.
var PublicInfo = LayerInfo{Name: PublicLayer, Description: "Public incidents and playbooks shipped with Casebook", Prefix: PublicPrefix}

var (
	layerNamePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	prefixPattern    = regexp.MustCompile(`^[A-Z][A-Z0-9]{1,9}$`)
	layerFields      = []string{"name", "description", "prefix", "edit_url", "organization"}
)

// ErrNoLayer is returned for a folder that is neither a public library nor a
// team layer.
var ErrNoLayer = errors.New("not a library folder: it has neither taxonomy.yaml nor layer.yaml")

// ReadLayerInfo reads the info of the layer rooted at fsys: layer.yaml when
// there is one, else PublicInfo for a folder holding taxonomy.yaml. Problems
// of layer.yaml are returned with its lines; the error is non-nil when the
// layer cannot be used at all (then it is left out of the stack).
func ReadLayerInfo(fsys fs.FS) (LayerInfo, []Problem, error) {
	src, err := fs.ReadFile(fsys, LayerFile)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := fs.Stat(fsys, "taxonomy.yaml"); err != nil {
			return LayerInfo{}, nil, ErrNoLayer
		}
		return PublicInfo, nil, nil
	}
	if err != nil {
		return LayerInfo{}, nil, fmt.Errorf("library: read %s: %w", LayerFile, err)
	}
	return parseLayerInfo(LayerFile, src)
}

func parseLayerInfo(p string, src []byte) (LayerInfo, []Problem, error) {
	if err := CheckYAML(src); err != nil {
		pr := BoundProblem(p, err)
		return LayerInfo{}, []Problem{pr}, errors.New(pr.String())
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		pr := yamlProblem(p, err, 0, "malformed YAML: ")
		return LayerInfo{}, []Problem{pr}, errors.New(pr.String())
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		pr := Problem{Path: p, Line: 1, Msg: "layer.yaml must be a mapping with name, prefix and (optionally) description, edit_url, organization"}
		return LayerInfo{}, []Problem{pr}, errors.New(pr.String())
	}
	f := newFront(p, doc.Content[0], 0, layerFields)
	info := LayerInfo{Path: p}
	info.Name = f.str("name", true)
	info.Description = f.str("description", false)
	info.Prefix = f.str("prefix", true)
	info.EditURL = f.str("edit_url", false)
	info.Organization = f.str("organization", false)
	switch {
	case info.Name == "":
	case info.Name == PublicLayer:
		f.addf(f.line("name"), "layer name %q is the public library's; name the team's layer (e.g. acme)", info.Name)
	case !layerNamePattern.MatchString(info.Name):
		f.addf(f.line("name"), "layer name %q must be lower-case words joined by hyphens", info.Name)
	}
	switch {
	case info.Prefix == "":
	case info.Prefix == PublicPrefix:
		f.addf(f.line("prefix"), "prefix %s is the public library's: a team's ids must never collide with IL- ids; choose another (e.g. ACME)", info.Prefix)
	case !prefixPattern.MatchString(info.Prefix):
		f.addf(f.line("prefix"), "prefix %q must be 2 to 10 upper-case letters or digits, starting with a letter (e.g. ACME)", info.Prefix)
	}
	if info.EditURL != "" {
		u, err := url.Parse(strings.ReplaceAll(info.EditURL, "{path}", "x"))
		switch {
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			f.addf(f.line("edit_url"), "edit_url %q is not an http(s) URL", info.EditURL)
			info.EditURL = ""
		case !strings.Contains(info.EditURL, "{path}"):
			f.addf(f.line("edit_url"), "edit_url %q has no {path}: it is a template such as https://git.example.com/team/casebook/-/edit/main/library/{path}", info.EditURL)
			info.EditURL = ""
		}
	}
	problems := f.problems
	if !layerNamePattern.MatchString(info.Name) || info.Name == PublicLayer || !prefixPattern.MatchString(info.Prefix) || info.Prefix == PublicPrefix {
		return info, problems, fmt.Errorf("library: %s: the layer needs a valid name and prefix", p)
	}
	return info, problems, nil
}

// Layer is one folder of the stack.
type Layer struct {
	FS fs.FS
	// Root is how problems name the layer's folder: "library" makes a
	// problem read "library/incidents/IL-0001-x.md:3: ...". Empty leaves
	// paths relative to the layer, as for a library linted on its own.
	Root string
	// Dir is the layer's folder on disk, where its Git history and file
	// times are read; empty when there is none to read (the embedded
	// library), and then no page claims when a file changed.
	Dir string
	// Embedded says the layer is compiled into the binary, so pages can
	// say why they show no edit link and no change time.
	Embedded bool
}

// Show returns the path of a layer file as problems print it.
func (l Layer) Show(p string) string {
	if l.Root == "" {
		return p
	}
	return path.Join(l.Root, p)
}
