-- Korean text beside the English, the entry's kind, the day it was added,
-- the triage routes each incident shows, and when each source was read.

ALTER TABLE incidents ADD COLUMN title_ko   TEXT NOT NULL DEFAULT '';
ALTER TABLE incidents ADD COLUMN summary_ko TEXT NOT NULL DEFAULT '';
ALTER TABLE incidents ADD COLUMN kind       TEXT NOT NULL DEFAULT 'incident';
ALTER TABLE incidents ADD COLUMN added      TEXT NOT NULL DEFAULT '';
ALTER TABLE incidents ADD COLUMN ko         TEXT NOT NULL DEFAULT ''; -- JSON of library.IncidentKo, '' when none

CREATE TABLE incident_routes (
	incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
	route       TEXT NOT NULL,
	PRIMARY KEY (incident_id, route)
);
CREATE INDEX incident_routes_route ON incident_routes (route, incident_id);

ALTER TABLE sources ADD COLUMN retrieved TEXT NOT NULL DEFAULT '';
ALTER TABLE sources ADD COLUMN secondary INTEGER NOT NULL DEFAULT 0;

ALTER TABLE playbooks ADD COLUMN ko TEXT NOT NULL DEFAULT ''; -- JSON of library.PlaybookKo, '' when none
