package ui

// cmidSpec is every process's RDMA CM identifiers (rdma_create_id(3)).
var cmidSpec = objectSpec("cm_id", "CM IDs", "every process's RDMA CM identifiers", withOwner(
	col("link", "link", 0, false), col("cm-idn", "cm-idn", 0, true),
	col("lqpn", "lqpn", 2, true), col("qp-type", "qp-type", 3, false), col("state", "state", 0, false),
	col("ps", "ps", 4, false), col("src-addr", "src-addr", 3, false), col("dst-addr", "dst-addr", 3, false)),
	"cmid", "cm-id")
