// Package view holds the rows every front end renders: the CLI's text and
// -j, the dashboard's tables, the exporter's JSON.
//
// A Row is one object as a line of fields; each Field carries the text a
// view prints and the typed value the JSON holds, under the key iproute2's
// `rdma -j` uses, so one model serves every front end and no front end
// formats values on its own. A row's identity (IDKey, Row.ID) lets a
// front end keep a selection on the same object across refreshes.
//
// filter.go is the one parser of iproute2's filter words ("state=RTS",
// "link rxe0/1", "lqpn 0-6,17"): ParseCommandWords for the CLI's view
// commands, ParseFilterWords (plus plain substrings) for the dashboard's
// "/". Each kind of row registers its words and the values that can exist
// (Register), so a value that can never match is refused with the valid
// ones listed.
//
// printable.go is the one escaper of outside text (Printable,
// Field.Display): a comm, a Prometheus label, anything a process or a
// peer chose, is shown with its control bytes and broken UTF-8 quoted as
// \xHH (\uHHHH for other unprintable runes), so no text view lets it
// command the terminal; the JSON views keep the exact bytes.
//
// units.go is the one printer of quantities: Bytes for a size in memory
// (binary units: "64 MiB" in a sentence, "64.0M" in a column) and SI for
// what a port counted ("12.3GB", "1.2k pkts/s").
//
// table.go and stream.go are the one printer of rows: WriteTable lines
// them up in columns (the sysfs views, irqs' per-device tables),
// RowStream prints `rdma resource show`'s lines or one JSON array a row
// at a time (res), WriteRows picks between them for -j.
//
// modify.go is the one printer of a modify verbscope trace saw
// (Modify): its transition, what it set, who made it, its JSON; trace's
// line, res qp --follow, the dashboard's QP history and the exporter
// print it through one Modify.
//
// The package is pure Go and reads nothing: the packages that read the
// system build the rows and register their kinds (inspect: res, qp, cq,
// mr, pd, ctx, srq, cm_id; sysfsmon: devices, ports, gids, irqs,
// counters).
package view
