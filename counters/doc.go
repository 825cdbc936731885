// Package counters is the registry of the RDMA counters the kernel's
// drivers expose: for each counter of a port's counters/ and
// hw_counters/, a device's hw_counters/ and RDMA netlink's statistics
// (RDMA_NLDEV_CMD_STAT_GET), what it counts in one line, its class, the
// side of a connection it is counted on, whether it is terminal (a
// request failed for good) or recoverable, its width (a 32-bit counter
// wraps) and the signal it gives a diagnosis (RNR, transport retry, ...).
//
// Lookup answers for one counter of one driver (DeviceDriver names a
// device's driver the registry's way; a name the driver numbers per
// virtual lane, DMA engine or receive context, as hfi1 does, is found
// through its family, which All lists as "DcRxFlitVl[0-7,15]"); All and
// Drivers list the registry,
// RetryCounters the counters a diagnosis of a driver's QPs watches
// (those that say it is retrying and those that say it gave up), and Delta is a rise that
// allows for a counter's wrap. It is pure Go, data and lookups only: no
// cgo, no I/O. A counter the registry does not know is reported unknown,
// never guessed.
package counters
