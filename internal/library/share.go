package library

import "reflect"

// Share makes lib hold other's copy of every incident and playbook the two
// have identically, so two libraries cut from one stack — the whole library
// and the library without a restricted layer — keep their common entries in
// memory once. At 10,000 incidents a decoded library is most of a warm
// start's heap. Entries that differ in any field (an incident whose
// playbook links were trimmed, a playbook only one has) keep their own.
func (lib *Library) Share(other *Library) {
	if other == nil {
		return
	}
	for i, in := range lib.Incidents {
		if o, ok := other.incByID[in.ID]; ok && o != in && reflect.DeepEqual(in, o) {
			lib.Incidents[i] = o
			lib.incByID[in.ID] = o
		}
	}
	for i, pb := range lib.Playbooks {
		if o, ok := other.pbByID[pb.ID]; ok && o != pb && reflect.DeepEqual(pb, o) {
			lib.Playbooks[i] = o
			lib.pbByID[pb.ID] = o
		}
	}
}
