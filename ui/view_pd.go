package ui

// pdSpec is every process's protection domains (ibv_alloc_pd(3)).
var pdSpec = objectSpec("pd", "PDs", "every process's protection domains", withOwner(
	col("ifname", "dev", 0, false), col("pdn", "pdn", 0, true),
	col("users", "users", 3, true), col("local_dma_lkey", "local_dma_lkey", 5, false),
	col("unsafe_global_rkey", "global_rkey", 6, false), col("ctxn", "ctxn", 4, true)))
