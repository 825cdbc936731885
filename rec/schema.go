package rec

// schemaVersion is the version of the tables below, kept in the file's
// PRAGMA user_version. A Reader refuses a file of a higher version: its
// tables may mean something this one does not know. Version 2 added
// irqs, version 3 shell, version 4 verdicts; an older file reads with
// none.
const schemaVersion = 4

// appID is the file's PRAGMA application_id, "vscr": it tells a
// recording from any other SQLite database.
const appID = 0x76736372

// schema creates a recording's tables; docs/record.md explains each
// column. Times are Unix nanoseconds (t); seq numbers the readings in
// the order written. Every table but host and readings refers to a
// reading by seq, so pruning a reading prunes what it wrote.
const schema = `
CREATE TABLE host (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE readings (
	seq      INTEGER PRIMARY KEY,
	t        INTEGER NOT NULL,
	source   TEXT NOT NULL CHECK (source IN ('res', 'sys')),
	keyframe INTEGER NOT NULL DEFAULT 0,
	took     INTEGER NOT NULL DEFAULT 0,
	err      TEXT
);
CREATE INDEX readings_t ON readings (t);
CREATE TABLE objects (
	id      INTEGER PRIMARY KEY,
	seq     INTEGER NOT NULL,
	op      TEXT NOT NULL CHECK (op IN ('appear', 'change', 'vanish', 'key')),
	kind    TEXT NOT NULL,
	dev     TEXT NOT NULL,
	num     INTEGER NOT NULL,
	pid     INTEGER NOT NULL DEFAULT 0,
	comm    TEXT NOT NULL DEFAULT '',
	qp_type TEXT,
	state   TEXT,
	sq_psn  INTEGER,
	rq_psn  INTEGER,
	rqpn    INTEGER,
	body    TEXT
);
CREATE INDEX objects_seq ON objects (seq);
CREATE INDEX objects_key ON objects (kind, dev, num, seq);
CREATE TABLE transitions (
	id      INTEGER PRIMARY KEY,
	seq     INTEGER NOT NULL,
	t       INTEGER NOT NULL,
	dev     TEXT NOT NULL,
	qpn     INTEGER NOT NULL,
	state   TEXT NOT NULL,
	gone    INTEGER NOT NULL DEFAULT 0,
	sq_psn  INTEGER NOT NULL DEFAULT 0,
	rq_psn  INTEGER NOT NULL DEFAULT 0,
	pid     INTEGER NOT NULL DEFAULT 0,
	comm    TEXT NOT NULL DEFAULT '',
	by_pid  INTEGER,
	by_comm TEXT,
	mask    TEXT,
	attrs   TEXT,
	ret     INTEGER,
	errno   TEXT
);
CREATE INDEX transitions_seq ON transitions (seq);
CREATE INDEX transitions_qp ON transitions (dev, qpn, t);
CREATE TABLE usage (
	seq   INTEGER NOT NULL,
	dev   TEXT NOT NULL,
	pid   INTEGER NOT NULL,
	comm  TEXT NOT NULL,
	kind  TEXT NOT NULL,
	count INTEGER NOT NULL
);
CREATE INDEX usage_seq ON usage (seq);
CREATE TABLE alerts (
	id       INTEGER PRIMARY KEY,
	seq      INTEGER NOT NULL,
	t        INTEGER NOT NULL,
	op       TEXT NOT NULL CHECK (op IN ('begin', 'end')),
	what     TEXT NOT NULL,
	kind     TEXT NOT NULL,
	dev      TEXT NOT NULL,
	num      INTEGER NOT NULL,
	pid      INTEGER NOT NULL DEFAULT 0,
	comm     TEXT NOT NULL DEFAULT '',
	state    TEXT NOT NULL DEFAULT '',
	evidence TEXT NOT NULL DEFAULT ''
);
CREATE INDEX alerts_seq ON alerts (seq);
CREATE TABLE verdicts (
	id        INTEGER PRIMARY KEY,
	seq       INTEGER NOT NULL,
	t         INTEGER NOT NULL,
	op        TEXT NOT NULL CHECK (op IN ('begin', 'change', 'end', 'key')),
	dev       TEXT NOT NULL,
	qpn       INTEGER NOT NULL,
	cause     TEXT NOT NULL DEFAULT '',
	certainty TEXT NOT NULL DEFAULT '',
	body      TEXT
);
CREATE INDEX verdicts_seq ON verdicts (seq);
CREATE TABLE devices (
	seq  INTEGER NOT NULL,
	op   TEXT NOT NULL CHECK (op IN ('appear', 'change', 'vanish', 'key')),
	dev  TEXT NOT NULL,
	body TEXT
);
CREATE INDEX devices_seq ON devices (seq);
CREATE TABLE counters (
	seq   INTEGER NOT NULL,
	dev   TEXT NOT NULL,
	port  INTEGER NOT NULL,
	grp   TEXT NOT NULL,
	name  TEXT NOT NULL,
	value INTEGER NOT NULL
);
CREATE INDEX counters_seq ON counters (seq);
CREATE TABLE irqs (
	seq  INTEGER NOT NULL,
	op   TEXT NOT NULL CHECK (op IN ('appear', 'change', 'vanish', 'key')),
	dev  TEXT NOT NULL,
	body TEXT
);
CREATE INDEX irqs_seq ON irqs (seq);
CREATE TABLE shell (
	seq  INTEGER NOT NULL,
	t    INTEGER NOT NULL,
	pid  INTEGER NOT NULL,
	face TEXT NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('in', 'out')),
	text TEXT NOT NULL
);
CREATE INDEX shell_seq ON shell (seq);
CREATE INDEX shell_t ON shell (t);
CREATE TABLE gaps (
	seq    INTEGER NOT NULL,
	t      INTEGER NOT NULL,
	what   TEXT NOT NULL,
	detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX gaps_seq ON gaps (seq);
`

// seqTables are the tables whose rows belong to a reading (seq).
var seqTables = []string{"objects", "transitions", "usage", "alerts", "verdicts", "devices", "counters", "irqs", "shell", "gaps"}
