-- Layers: each entry's layer (the public library or a team's own), the page
-- that edits its file in the layer's Git host, and when the file last
-- changed (from Git or the file's time; empty when nothing tells). A
-- playbook may replace a lower layer's playbook with the same id.

ALTER TABLE incidents ADD COLUMN layer        TEXT NOT NULL DEFAULT 'public';
ALTER TABLE incidents ADD COLUMN edit_url     TEXT NOT NULL DEFAULT '';
ALTER TABLE incidents ADD COLUMN changed      TEXT NOT NULL DEFAULT '';
ALTER TABLE incidents ADD COLUMN changed_from TEXT NOT NULL DEFAULT '';
CREATE INDEX incidents_layer ON incidents (layer);

ALTER TABLE playbooks ADD COLUMN layer        TEXT NOT NULL DEFAULT 'public';
ALTER TABLE playbooks ADD COLUMN edit_url     TEXT NOT NULL DEFAULT '';
ALTER TABLE playbooks ADD COLUMN changed      TEXT NOT NULL DEFAULT '';
ALTER TABLE playbooks ADD COLUMN changed_from TEXT NOT NULL DEFAULT '';
ALTER TABLE playbooks ADD COLUMN overrides    TEXT NOT NULL DEFAULT ''; -- JSON of library.Override, '' when none

ALTER TABLE problems ADD COLUMN layer TEXT NOT NULL DEFAULT '';
ALTER TABLE problems ADD COLUMN todo  INTEGER NOT NULL DEFAULT 0;
