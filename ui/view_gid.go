package ui

// gidSpec is the ports' GID tables: ports/*/gids and gid_attrs.
var gidSpec = sysfsSpec("gid", "GIDs", "the ports' GID tables", "gids", []column{
	col("dev", "dev", 0, false), col("port", "port", 0, true), col("index", "index", 0, true),
	col("type", "type", 0, false), col("ip", "IP", 0, false), col("netdev", "netdev", 1, false), col("gid", "GID", 2, false)},
	"gids")
