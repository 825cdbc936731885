package ui

// portSpec is the devices' ports: /sys/class/infiniband/*/ports/*.
var portSpec = sysfsSpec("port", "ports", "their ports: state, link layer, rate, MTU", "ports", []column{
	col("dev", "dev", 0, false), col("port", "port", 0, true), col("state", "state", 0, false),
	col("phys_state", "physical", 1, false), col("link", "link layer", 2, false), col("rate", "rate", 1, false),
	col("netdev_mtu", "MTU", 3, true), col("netdev", "netdev", 0, false), col("lid", "LID", 4, false),
	col("gids", "GIDs", 5, false), col("recommended_gid_index", "RoCEv2 GID", 2, true)},
	"ports", "link")
