package ui

// cqSpec is every process's completion queues (ibv_create_cq(3)).
var cqSpec = objectSpec("cq", "CQs", "every process's completion queues", withOwner(
	col("ifname", "dev", 0, false), col("cqn", "cqn", 0, true),
	col("cqe", "cqe", 0, true), col("users", "users", 3, true), col("poll-ctx", "poll-ctx", 4, false),
	col("adaptive-moderation", "dim", 6, false), col("ctxn", "ctxn", 5, true)))
