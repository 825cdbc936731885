// Package verbsfacts is what libibverbs knows of this host's devices
// that RDMA netlink does not carry, in the form live's readers take it:
// each device's object limits, which the Tracker warns near
// (live.Options.LoadLimits), and a port's facts, which trace's check of
// a failed modify reads (live.TraceOptions.Env). It is apart from live
// because it calls libibverbs through cgo (package verbs) and live is
// pure Go; the commands that start a live.Host hand these to it. Built
// without cgo, verbs refuses every call and there are no limits or
// facts: the readers go on without them.
package verbsfacts
