package ui

// mrSpec is every process's memory regions (ibv_reg_mr(3)).
var mrSpec = objectSpec("mr", "MRs", "every process's memory regions", withOwner(
	col("ifname", "dev", 0, false), col("mrn", "mrn", 0, true),
	col("mrlen", "mrlen", 0, true), col("lkey", "lkey", 3, false), col("rkey", "rkey", 3, false),
	col("iova", "iova", 5, false), col("pdn", "pdn", 4, true)))
