package verbsfacts

import (
	"github.com/verbscope/verbscope/trace"
	"github.com/verbscope/verbscope/verbs"
)

// TraceEnv gives trace's check of a failed modify a port's facts as
// libibverbs gives them (verbs.DeviceCheckEnv: ibv_query_device(3),
// ibv_query_port(3)), asked once per device and port
// (trace.CachedEnv), for live.TraceOptions.Env.
func TraceEnv() trace.EnvFunc { return trace.CachedEnv(verbs.DeviceCheckEnv) }
