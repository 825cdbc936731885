package ui

// devSpec is the RDMA devices: /sys/class/infiniband/*.
var devSpec = sysfsSpec("dev", "devices", "the RDMA devices (sysfs)", "devices", []column{
	col("dev", "dev", 0, false), col("node_type", "type", 3, false), col("fw", "firmware", 2, false),
	col("hca", "HCA", 4, false), col("node_guid", "node GUID", 1, false), col("netdevs", "netdev", 0, false),
	col("pci", "PCI", 3, false), col("numa_node", "NUMA", 4, true), col("uverbs", "uverbs", 5, false), col("ports", "ports", 0, true)},
	"devices", "device")
