package ui

// srqSpec is every process's shared receive queues (ibv_create_srq(3)).
var srqSpec = objectSpec("srq", "SRQs", "every process's shared receive queues", withOwner(
	col("ifname", "dev", 0, false), col("srqn", "srqn", 0, true),
	col("type", "type", 0, false), col("lqpn", "lqpn", 3, false), col("pdn", "pdn", 4, true), col("cqn", "cqn", 4, true)))
