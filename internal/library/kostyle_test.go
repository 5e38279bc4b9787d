package library

import (
	"slices"
	"strings"
	"testing"
)

func TestKoreanStyle(t *testing.T) {
	cases := []struct {
		name, path, text string
		want             []int // lines with a problem
	}{
		{"advertise", "incidents/IL-9001-x.ko.md", "노드가 `nvidia.com/gpu`를 광고하지 않았다.\n노드가 GPU를 내놓지 않았다.\n노드가 GPU를 노출하지 않았다.", []int{1, 2}},
		{"reach", "playbooks/x.ko.md", "kubelet이 API 서버에 닿지 못했다.\nkubelet이 API 서버에 연결하지 못했다.", []int{1}},
		{"what we read", "incidents/IL-9001-x.ko.md", "우리가 읽은 범위에서는 원인이 없다.\n확인한 범위에서는 원인이 없다.", []int{1}},
		{"label", "triage/x.yaml", "    question_ko: 노드 레이블이 맞나요?\n    question_ko: 노드 라벨이 맞나요?", []int{1}},
		{"aliases keep what people type", "taxonomy.yaml", "    aliases: [node label, 레이블 변경]\n    label_ko: 레이블 변경", []int{2}},
		{"transliteration", "checks/x.yaml", "title_ko: 메트릭을 읽지 못하는 HPA\ntitle_ko: 지표를 읽지 못하는 HPA\nlabel_ko: 프로브가 포기함", []int{1, 3}},
		{"a signal's pattern keeps what people type", "triage/signals.yaml", "    regex: '프로브|헬스 체크'\n    label_ko: 웹훅 타임아웃", []int{2}},
		{"metaphors", "incidents/IL-9001-x.ko.md", "건강한 노드로 옮겼다.\n다른 파드를 굶기는 프로세스.\n정상 노드로 옮겼다.\n노드가 정말 아픈지 본다.\n아파치 서버를 재시작했다.", []int{1, 2, 4}},
		{"add", "playbooks/x.ko.md", "노드를 더한다.\n노드를 추가한다.", []int{1}},
		{"tree steps", "playbooks/x.ko.md", "1층: 드라이버\n1단계: 드라이버", []int{1}},
		{"kubernetes in prose", "incidents/IL-9001-x.ko.md", strings.Join([]string{
			"Kubernetes 클러스터가 멈췄다.",                       // flagged
			"Kubernetes API 오류를 치명적으로 다뤘다.",               // flagged: write 쿠버네티스 API
			"Google Kubernetes Engine 위의 쿠버네티스 클러스터.",     // product name
			"Kubernetes 1.24 클러스터에서 재현했다.",                // version
			"AWS의 kops, Kubernetes v1.10.6에서 일어났다.",       // version
			"Kubernetes Failure Stories에 실린 사례.",          // a title
			"`kubernetes.io/hostname` 라벨을 본다.",            // code and lower case
			"[Kubernetes 문서](https://kubernetes.io)를 본다.", // a link's text
		}, "\n"), []int{1, 2}},
		{"english lines untouched", "incidents/IL-9001-x.md", "title: The node stopped advertising GPUs\ntitle_ko: 노드가 GPU를 광고하지 않았다", []int{2}},
		{"lessons propositive", "incidents/IL-9001-x.ko.md", "## 조치\n- 롤백하자.\n## 교훈\nGPU 수를 확인하자.\nGPU 수를 확인해야 한다.\n책임은 운영자.\n- 경보를 두자", []int{4, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []int
			for _, p := range KoreanStyle(c.path, []byte(c.text)) {
				if p.Path != c.path || !strings.HasPrefix(p.Msg, "Korean style: ") {
					t.Errorf("problem %v: want path %s and a Korean style message", p, c.path)
				}
				got = append(got, p.Line)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("problems on lines %v, want %v", got, c.want)
			}
		})
	}
}
