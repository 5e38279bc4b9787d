-- The read model: a projection of the Markdown library, rebuilt from it.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE terms (
	facet       TEXT NOT NULL,
	id          TEXT NOT NULL,
	label       TEXT NOT NULL,
	label_ko    TEXT NOT NULL,
	aliases     TEXT NOT NULL DEFAULT '[]', -- JSON array
	description TEXT NOT NULL DEFAULT '',
	parent      TEXT NOT NULL DEFAULT '',
	category    TEXT NOT NULL DEFAULT '',
	position    INTEGER NOT NULL,
	PRIMARY KEY (facet, id)
);

CREATE TABLE incidents (
	id           TEXT PRIMARY KEY,
	title        TEXT NOT NULL,
	summary      TEXT NOT NULL,
	organization TEXT NOT NULL,
	org_slug     TEXT NOT NULL,
	date         TEXT NOT NULL,
	year         INTEGER NOT NULL,
	trigger_text TEXT NOT NULL DEFAULT '',
	detection    TEXT NOT NULL DEFAULT '',
	path         TEXT NOT NULL,
	sections     TEXT NOT NULL DEFAULT '[]', -- JSON array of library.Section
	position     INTEGER NOT NULL           -- 0 = newest
);
CREATE INDEX incidents_org ON incidents (org_slug);
CREATE INDEX incidents_year ON incidents (year);
CREATE INDEX incidents_position ON incidents (position);

CREATE TABLE incident_terms (
	incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
	facet       TEXT NOT NULL,
	term_id     TEXT NOT NULL,
	PRIMARY KEY (incident_id, facet, term_id),
	FOREIGN KEY (facet, term_id) REFERENCES terms (facet, id)
);
CREATE INDEX incident_terms_term ON incident_terms (facet, term_id, incident_id);

CREATE TABLE sources (
	incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
	position    INTEGER NOT NULL,
	url         TEXT NOT NULL,
	title       TEXT NOT NULL,
	kind        TEXT NOT NULL,
	PRIMARY KEY (incident_id, position)
);

CREATE TABLE playbooks (
	id       TEXT PRIMARY KEY,
	title    TEXT NOT NULL,
	summary  TEXT NOT NULL,
	path     TEXT NOT NULL,
	signals  TEXT NOT NULL DEFAULT '[]', -- JSON array
	sections TEXT NOT NULL DEFAULT '[]'  -- JSON array of library.Section
);

CREATE TABLE playbook_terms (
	playbook_id TEXT NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
	facet       TEXT NOT NULL,
	term_id     TEXT NOT NULL,
	PRIMARY KEY (playbook_id, facet, term_id),
	FOREIGN KEY (facet, term_id) REFERENCES terms (facet, id)
);

CREATE TABLE incident_playbooks (
	incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
	playbook_id TEXT NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
	PRIMARY KEY (incident_id, playbook_id)
);
CREATE INDEX incident_playbooks_playbook ON incident_playbooks (playbook_id);

-- Problems found while loading, kept so a warm start can still report them.
CREATE TABLE problems (
	path TEXT NOT NULL,
	line INTEGER NOT NULL,
	msg  TEXT NOT NULL
);
