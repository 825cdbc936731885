package verbsfacts

import (
	"log/slog"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/verbs"
)

// Limits asks libibverbs for each device's object limits
// (ibv_query_device(3): max_qp, max_cq, max_mr, max_pd, max_srq), which
// RDMA netlink does not carry; a device that cannot be opened just has
// none, and log says why.
func Limits(log *slog.Logger) map[string]inspect.Limits {
	devs, err := verbs.Devices()
	if err != nil {
		log.Warn("no device limits: libibverbs lists no device", "err", err)
		return nil
	}
	limits := map[string]inspect.Limits{}
	for _, d := range devs {
		ctx, err := verbs.Open(d.Name)
		if err != nil {
			log.Warn("no device limits", "device", d.Name, "err", err)
			continue
		}
		a, err := ctx.QueryDevice()
		ctx.Close()
		if err != nil {
			log.Warn("no device limits", "device", d.Name, "err", err)
			continue
		}
		limits[d.Name] = inspect.Limits{MaxQP: uint64(a.MaxQP), MaxCQ: uint64(a.MaxCQ), MaxMR: uint64(a.MaxMR), MaxPD: uint64(a.MaxPD), MaxSRQ: uint64(a.MaxSRQ)}
	}
	return limits
}

// LoadLimits is Limits for live.Options.LoadLimits, saying on log why a
// device has none (slog.DiscardHandler for a reader with no log).
func LoadLimits(log *slog.Logger) func() map[string]inspect.Limits {
	return func() map[string]inspect.Limits { return Limits(log) }
}
