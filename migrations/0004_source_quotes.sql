-- Quotes: the passage of each source that carries the incident's claim,
-- copied verbatim in the source's language ('' when the source has none).

ALTER TABLE sources ADD COLUMN quote TEXT NOT NULL DEFAULT '';
