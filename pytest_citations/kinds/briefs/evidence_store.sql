-- The evidence store of brief-citation-contract.md §8 (SQLite). docs/evidence-store.md explains it.
-- Timestamps are ISO 8601 text; foreign keys are declared (enforce with PRAGMA foreign_keys = ON).
PRAGMA user_version = 1;

CREATE TABLE IF NOT EXISTS sources (
    id               TEXT PRIMARY KEY,
    name             TEXT,
    url              TEXT,
    credibility_tier INTEGER CHECK (credibility_tier BETWEEN 1 AND 4),
    paywall_policy   TEXT CHECK (paywall_policy IN ('full', 'metadata_only')),
    tags             TEXT  -- a JSON array of strings
);

CREATE TABLE IF NOT EXISTS documents (
    id           TEXT PRIMARY KEY,
    source_id    TEXT NOT NULL REFERENCES sources (id),
    url          TEXT NOT NULL,
    title        TEXT,
    published_at TEXT,
    fetched_at   TEXT
);
CREATE INDEX IF NOT EXISTS documents_source_id ON documents (source_id);

CREATE TABLE IF NOT EXISTS chunks (
    id      TEXT PRIMARY KEY,
    doc_id  TEXT NOT NULL REFERENCES documents (id),
    ordinal INTEGER,
    text    TEXT
);
CREATE INDEX IF NOT EXISTS chunks_doc_id ON chunks (doc_id);

CREATE TABLE IF NOT EXISTS citations (
    id           TEXT PRIMARY KEY,
    source_id    TEXT NOT NULL REFERENCES sources (id),
    publisher    TEXT NOT NULL,
    doc_id       TEXT NOT NULL REFERENCES documents (id),
    chunk_id     TEXT NOT NULL REFERENCES chunks (id),
    url          TEXT NOT NULL,
    title        TEXT NOT NULL,
    published_at TEXT NOT NULL,
    fetched_at   TEXT NOT NULL,
    quote_start  INTEGER,  -- quote_span: only for paywall_policy = 'full' sources
    quote_end    INTEGER,
    quote_text   TEXT,
    snippet_text TEXT      -- snippet_span: allowed for every source
);
CREATE INDEX IF NOT EXISTS citations_source_id ON citations (source_id);
CREATE INDEX IF NOT EXISTS citations_doc_id ON citations (doc_id);
CREATE INDEX IF NOT EXISTS citations_published_at ON citations (published_at);

CREATE TABLE IF NOT EXISTS evidence_packs (
    pack_id           TEXT PRIMARY KEY,
    query             TEXT,
    generated_at      TEXT,
    unique_publishers INTEGER,
    tier_1_pct        REAL,
    tier_2_pct        REAL,
    tier_3_pct        REAL,
    tier_4_pct        REAL,
    max_publisher_pct REAL
);

CREATE TABLE IF NOT EXISTS evidence_pack_chunks (
    pack_id          TEXT NOT NULL REFERENCES evidence_packs (pack_id),
    chunk_id         TEXT NOT NULL REFERENCES chunks (id),
    source_id        TEXT REFERENCES sources (id),
    score            REAL,
    credibility_tier INTEGER,
    PRIMARY KEY (pack_id, chunk_id)
);

CREATE TABLE IF NOT EXISTS syntheses (
    id           TEXT PRIMARY KEY,
    brief_path   TEXT UNIQUE,  -- the brief's repository-relative path, as the checker names it
    pack_id      TEXT REFERENCES evidence_packs (pack_id),
    generated_at TEXT
);

-- The rendered [N] numbering of one synthesis (the presentation layer of §2).
CREATE TABLE IF NOT EXISTS synthesis_markers (
    synthesis_id TEXT NOT NULL REFERENCES syntheses (id),
    marker       INTEGER NOT NULL,
    citation_id  TEXT NOT NULL REFERENCES citations (id),
    PRIMARY KEY (synthesis_id, marker)
);

CREATE TABLE IF NOT EXISTS synthesis_bullets (
    synthesis_id TEXT NOT NULL REFERENCES syntheses (id),
    section      TEXT NOT NULL CHECK (section IN ('prevailing', 'counter', 'minority', 'watch')),
    bullet_index INTEGER NOT NULL,
    text         TEXT,
    PRIMARY KEY (synthesis_id, section, bullet_index)
);

-- Which citations support bullet N in section X of synthesis Y.
CREATE TABLE IF NOT EXISTS synthesis_bullet_citations (
    synthesis_id TEXT NOT NULL,
    section      TEXT NOT NULL,
    bullet_index INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    citation_id  TEXT NOT NULL REFERENCES citations (id),
    PRIMARY KEY (synthesis_id, section, bullet_index, position),
    FOREIGN KEY (synthesis_id, section, bullet_index) REFERENCES synthesis_bullets (synthesis_id, section, bullet_index)
);
CREATE INDEX IF NOT EXISTS synthesis_bullet_citations_citation_id ON synthesis_bullet_citations (citation_id);
