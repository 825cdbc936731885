package ui

// ctxSpec is every process's device contexts (ibv_open_device(3)).
var ctxSpec = objectSpec("ctx", "contexts", "every process's device contexts", withOwner(
	col("ifname", "dev", 0, false), col("ctxn", "ctxn", 0, true)))
