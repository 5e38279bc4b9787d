package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var updateAnswers = flag.Bool("update-answers", false, "record the answers to testdata/answers.json's requests anew")

// answersFile holds requests — the benchmark's fixed query mix, a sample of
// its query log and quoted phrases — with the answers the index gave them
// for one version of the library's content. It pins the answers across
// changes to the index's code: a change that moves a hit, a count, a
// highlight or a score shows here.
const answersFile = "testdata/answers.json"

type answers struct {
	Hash    string   `json:"content_hash"`
	Answers []answer `json:"answers"`
}

type answer struct {
	Request Request   `json:"request"`
	Total   int       `json:"total"`
	First   []string  `json:"first,omitempty"`  // the first hits' ids, to read a difference by
	Scores  []float64 `json:"scores,omitempty"` // and their scores
	Digest  string    `json:"digest"`           // of the whole answer but the scores
}

// answerOf is the recorded form of res. The digest leaves the scores out
// (the order of the hits is in it): they are float32 sums whose last bits
// are not part of an answer, and are compared apart, within a millionth.
func answerOf(t *testing.T, r Request, res *Result) answer {
	t.Helper()
	a := answer{Request: r, Total: res.Total}
	hits := make([]Hit, len(res.Hits))
	for i, h := range res.Hits {
		if i < 5 {
			a.First, a.Scores = append(a.First, h.ID), append(a.Scores, h.Score)
		}
		h.Score = 0
		hits[i] = h
	}
	cp := *res
	cp.Hits = hits
	b, err := json.Marshal(&cp)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	a.Digest = hex.EncodeToString(sum[:12])
	return a
}

// TestAnswersUnchanged runs every request of answersFile and wants the
// recorded answer. The answers belong to one content version: after a
// content change it fails until they are recorded anew with
// -update-answers, as the corpus goldens do, so it never passes by
// skipping.
func TestAnswersUnchanged(t *testing.T) {
	ix := sharedIndex(t)
	data, err := os.ReadFile(answersFile)
	if err != nil {
		t.Fatal(err)
	}
	var want answers
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if want.Hash != ix.lib.Hash && !*updateAnswers {
		t.Fatalf("%s was recorded for content %.16s, the library is %.16s: check the search code is unchanged, then record it anew with go test ./internal/search -run TestAnswersUnchanged -update-answers", answersFile, want.Hash, ix.lib.Hash)
	}
	got := answers{Hash: ix.lib.Hash}
	bad := 0
	for _, w := range want.Answers {
		res, err := ix.Search(context.Background(), w.Request)
		if err == nil && res.Partial { // out of time on a busy machine: once more
			res, err = ix.Search(context.Background(), w.Request)
		}
		if err != nil {
			t.Fatalf("%+v: %v", w.Request, err)
		}
		if res.Partial {
			t.Logf("%q ran out of time twice; its answer is not compared", w.Request.Query)
			got.Answers = append(got.Answers, w)
			continue
		}
		g := answerOf(t, w.Request, res)
		got.Answers = append(got.Answers, g)
		if !*updateAnswers && (g.Digest != w.Digest || !sameScores(g.Scores, w.Scores)) {
			if bad++; bad <= 10 {
				t.Errorf("%q (kind %q, filters %v, page %d): total %d, first %v; recorded total %d, first %v", w.Request.Query,
					w.Request.Kind, w.Request.Filters, w.Request.Page, g.Total, g.First, w.Total, w.First)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d answers differ", bad, len(want.Answers))
	}
	if *updateAnswers {
		// One answer a line, so that a change reads as a diff of lines.
		b := []byte(`{"content_hash": "` + got.Hash + `", "answers": [`)
		for i, a := range got.Answers {
			line, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, "\n"...), line...)
		}
		b = append(b, "\n]}\n"...)
		if err := os.WriteFile(filepath.FromSlash(answersFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sameScores(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6*math.Max(math.Abs(a[i]), math.Abs(b[i])) {
			return false
		}
	}
	return true
}
