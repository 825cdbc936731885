// Package rec records a host's RDMA state to a file and reads it back:
// `verbscope record`, `record info` and `record export`.
//
// A recording is an SQLite database (schema.go, documented in
// docs/record.md) so that people can ask it questions without us. It
// stores changes, not copies: an object is written when it appears,
// when what a reading saw of it changes and when it vanishes, with a
// keyframe (every live object written whole) every
// WriterOptions.KeyEvery readings so that the state at any reading is
// rebuilt from at most that many readings of changes. QP state
// transitions carry the traced modify's attributes; alerts are written
// when they begin and end; port counters when their value moves; gaps
// (a reading missed or failed, trace events lost) are written too.
//
// Each reading is one transaction of a WAL-mode database, so a recorder
// killed mid-write leaves a file with every reading it committed. A
// Writer (Create) prunes the oldest readings by age and size (whole
// keyframe spans, so what is left still rebuilds). A Reader (Open) reads
// a recording as outside input (open.go): read-only, its schema exactly
// verbscope's (schemacheck.go), its values bounded; it refuses a file of
// a newer schema and turns a damaged one into an error, never a panic.
//
// Record is `verbscope record`: it starts the host's readers
// (live.Start, what only libibverbs knows handed in by the caller) and
// records them until stopped, then takes one last reading, which what
// RecordOptions.Again gives (a second ctrl+c) cuts short. Run records a
// live.Host's netlink and sysfs feeds (a Source) for it; a Feed writes
// the readings another consumer already has (the dashboard's rewind,
// `export --record`); HostHere is the host table of a recording made on
// this host. Player plays a recording back as the watchers' frames
// (`dash --replay`, the rewind); Reader answers `record info` (Info, its
// text Info.WriteText) and `record export` (its CSV WriteCSV, text.go),
// whose Perfetto form (perfetto.go) draws each QP's states on a
// timeline. The package imports no cgo code.
package rec
