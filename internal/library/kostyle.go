package library

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// The library's Korean keeps one word per concept, the word Korean SREs
// write (library/README.md, "Korean style"). These are the forms that style
// rules out: each is a calque of an English word or a second word for a
// concept that already has one, and a reader scanning titles trips on them.
var koRuledOut = []struct {
	re  *regexp.Regexp
	msg string
}{
	{regexp.MustCompile(`광고(하|한|된|되|해|할|함)`), "a node exposes a resource: write 노출하다, not 광고하다"},
	{regexp.MustCompile(`내놓`), "write 노출하다 for a resource a node offers (공개하다/배포하다 for a release), not 내놓다"},
	{regexp.MustCompile(`닿`), "reaching a server is 접근하다 or 연결하다, not 닿다"},
	{regexp.MustCompile(`우리가 읽은`), "write 확인한 범위에서는, or leave it out, not 우리가 읽은"},
	{regexp.MustCompile(`레이블`), "write 라벨, not 레이블"},
	{regexp.MustCompile(`건강한|건강하지|아프다|아픈|아파서|굶기|굶주|싸우`), "an English metaphor: write 정상/문제가 있는/자원을 독차지하다"},
	{regexp.MustCompile(`더한다|더하거나|더하지|더하는|더했다`), "add is 추가하다 (or 늘리다 for capacity), not 더하다"},
	{regexp.MustCompile(`[0-9]+층`), "steps of a tree are 1단계, 2단계, not 층"},
	{regexp.MustCompile(`메트릭|프로브|테인트|톨러레이션|셀렉터|오토스케일러|웹훅|인그레스|오퍼랜드|매니지드`), "a transliteration the style rules rule out: keep the word in Latin script (probe, taint, webhook …), or write 지표 for metrics and 관리형 for managed"},
}

// koKubernetes finds Kubernetes written in Latin letters; koProductAround
// tells a product name or a version (Google Kubernetes Engine, Kubernetes
// 1.24, Kubernetes the Hard Way), where the Latin name stays.
var (
	koKubernetes  = regexp.MustCompile(`Kubernetes`)
	koLatinBefore = regexp.MustCompile(`[A-Za-z][A-Za-z.]*[ -]$`)
	koLatinAfter  = regexp.MustCompile(`^[ -]?(v?[0-9]|[A-Z][a-z]|the |integration)`)
	koCode        = regexp.MustCompile("`[^`]*`|https?://\\S+|\\[[^\\]]*\\]\\([^)]*\\)")
)

// koAliases is a search alias list or a signal's pattern: both hold what
// people type, ruled-out spellings included, so search and the classifier
// find them.
var koAliases = regexp.MustCompile(`^\s*(aliases(_ko)?|regex):`)

// koNounsInJa are nouns ending in 자 (者, 字) that can close a sentence; any
// other sentence in Lessons that ends in 자 is the propositive "let's".
var koNounsInJa = regexp.MustCompile(`(사용|관리|운영|담당|기여|작성|신청|소유|연산|인|문|숫|글|가입|발표|제공|관찰|응답|요청|호출|구독|개발|참여|설계|책임|저|학|유|기술|전문|입|후)자$`)

// koLessonEnd finds sentences that end in the propositive ~자 ("~하자").
var koLessonEnd = regexp.MustCompile(`([가-힣]+)자([.!]|$)`)

// KoreanStyle reports every line of a file's Korean text that uses a form
// the Korean style rules out. Only lines with Hangul are read, so an
// English file's title_ko and a tree's question_ko are checked while their
// English neighbours are not. A Lessons section (교훈) also keeps the
// plain written style: "~한다", not "~하자".
func KoreanStyle(p string, src []byte) []Problem {
	var out []Problem
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), len(src)+1)
	lessons := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			lessons = strings.TrimSpace(line[3:]) == "교훈"
			continue
		}
		if !hasHangul(line) || koAliases.MatchString(line) {
			continue
		}
		prose := koCode.ReplaceAllString(line, " ")
		for _, r := range koRuledOut {
			if m := r.re.FindString(prose); m != "" {
				out = append(out, Problem{Path: p, Line: n, Msg: fmt.Sprintf("Korean style: %q: %s", m, r.msg)})
			}
		}
		for _, loc := range koKubernetes.FindAllStringIndex(prose, -1) {
			if !koLatinBefore.MatchString(prose[:loc[0]]) && !koLatinAfter.MatchString(prose[loc[1]:]) {
				out = append(out, Problem{Path: p, Line: n, Msg: "Korean style: write 쿠버네티스 in a Korean sentence (Kubernetes only in product names and versions)"})
				break
			}
		}
		if lessons {
			for _, m := range koLessonEnd.FindAllStringSubmatch(prose, -1) {
				if !koNounsInJa.MatchString(m[1] + "자") {
					out = append(out, Problem{Path: p, Line: n, Msg: fmt.Sprintf("Korean style: Lessons keep the plain written style (~한다, ~해야 한다), not %q", m[1]+"자")})
					break
				}
			}
		}
	}
	return out
}

func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// KoreanStyleFS checks every Markdown and YAML file of a layer with
// KoreanStyle. It is part of lint, not of loading: style never keeps an
// entry out of the library.
func KoreanStyleFS(l Layer) []Problem {
	var out []Problem
	_ = fs.WalkDir(l.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		switch path.Ext(p) {
		case ".md", ".yaml", ".yml":
		default:
			return nil
		}
		if path.Base(p) == "README.md" {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > maxStyleFile {
			return nil
		}
		src, err := fs.ReadFile(l.FS, p)
		if err != nil {
			return nil
		}
		for _, pr := range KoreanStyle(p, src) {
			pr.Path = l.Show(pr.Path)
			out = append(out, pr)
		}
		return nil
	})
	return out
}

// maxStyleFile keeps the style check off files too large to be prose
// anyone wrote by hand (recorded snapshots).
const maxStyleFile = 4 << 20
