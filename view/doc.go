// Package view holds the rows every front end renders: the CLI's text and
// -j, the dashboard's tables, the exporter's JSON.
//
// A Row is one object as a line of fields; each Field carries the text a
// view prints and the typed value the JSON holds, under the key iproute2's
// `rdma -j` uses, so one model serves every front end and no front end
// formats values on its own. The package is pure Go and reads nothing:
// the packages that read the system (inspect, sysfsmon) build the rows.
package view
