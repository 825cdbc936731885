package doctor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/verbscope/verbscope/sysfsmon"
)

// providers are the userspace driver names of rdma-core's providers; a
// device's name starts with its provider's under the kernel's default
// naming (mlx5_0, rxe0, irdma0, bnxt_re0, efa_0).
var providers = []string{"bnxt_re", "cxgb4", "efa", "erdma", "hfi1", "hns", "ionic", "irdma", "mana",
	"mlx4", "mlx5", "mthca", "ocrdma", "qedr", "rxe", "siw", "usnic", "vmw_pvrdma"}

// providerFor guesses the provider of a device from its name (or a soft
// device's node_desc); "" when the name says nothing (renamed devices,
// such as rocep59s0f1).
func providerFor(d sysfsmon.Device) string {
	for _, p := range providers {
		rest, ok := strings.CutPrefix(d.Name, p)
		rest = strings.TrimPrefix(rest, "_")
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return p
		}
	}
	if d.Soft && slices.Contains([]string{"rxe", "siw"}, d.NodeDesc) {
		return d.NodeDesc
	}
	return ""
}

func deviceNames(devs []sysfsmon.Device) []string {
	out := make([]string, len(devs))
	for i, d := range devs {
		out[i] = d.Name
	}
	return out
}

// checkDevices compares the kernel's devices (sysfs, netlink) with the
// ones libibverbs lists and can open.
func checkDevices(f *Facts) Result {
	r := newResult()
	if f.DevicesErr != nil || len(f.Devices) == 0 {
		v := "none"
		if f.DevicesErr != nil {
			v = f.DevicesErr.Error()
		}
		r.judge(Fail, "kernel devices", v, srcClassIB)
		r.problem(Fail, "the kernel has no RDMA device")
		r.fix("%s", fixDriver)
		return r.done()
	}
	names := deviceNames(f.Devices)
	r.note("kernel devices", strings.Join(names, ", "), srcClassIB)
	if nl := f.Netlink; nl != nil {
		var nlNames []string
		for _, d := range nl.Devices {
			nlNames = append(nlNames, d.Name)
		}
		r.note("kernel devices", strings.Join(nlNames, ", "), srcNetlinkDevs)
		for _, n := range names {
			if !slices.Contains(nlNames, n) {
				r.judge(Warn, n, "in sysfs, not in netlink", srcNetlinkDevs)
				r.problem(Warn, "%s is in sysfs but netlink does not list it: it belongs to another network namespace (rdma system shows whether netns mode is exclusive)", n)
			}
		}
	} else if f.NetlinkErr != nil {
		r.note("kernel devices", "netlink failed: "+f.NetlinkErr.Error(), srcNetlinkDevs)
	}
	v := f.Verbs
	switch {
	case !f.Live:
		r.note("libibverbs", "not asked: the facts come from a recorded tree, not this host", srcVerbsList)
		r.ok("the kernel has %s (libibverbs not asked for a recorded tree)", joinAnd(names))
		return r.done()
	case v == nil:
		return r.done()
	}
	var listed []string
	for _, d := range v.Devices {
		listed = append(listed, d.Name)
	}
	lv := strings.Join(listed, ", ")
	if v.ListErr != nil {
		lv = strings.TrimPrefix(lv+"; ", "; ") + v.ListErr.Error()
	}
	r.note("libibverbs devices", lv, srcVerbsList)
	h := f.Host
	for _, d := range f.Devices {
		if v.listed(d.Name) {
			devOpened(r, f, d.Name, v.Open[d.Name])
			continue
		}
		devHidden(r, h, d)
	}
	for _, n := range listed {
		if !slices.Contains(names, n) {
			r.judge(Warn, n, "listed by libibverbs, unknown to the kernel", srcVerbsList)
			r.problem(Warn, "libibverbs lists %s, which /sys/class/infiniband does not have", n)
		}
	}
	if r.worst == Pass {
		r.ok("%s: seen by the kernel and opened through libibverbs", joinAnd(names))
	}
	return r.done()
}

// devOpened judges a device libibverbs lists: it must open.
func devOpened(r *result, f *Facts, name string, o VerbsDevice) {
	if o.Err == nil {
		r.judge(Pass, name, "in sysfs and in libibverbs' list; ibv_open_device and ibv_query_device work", srcVerbsList+", ibv_open_device")
		return
	}
	r.judge(Fail, name, o.Err.Error(), "ibv_open_device")
	why, denied := uverbsDenied(f, name)
	switch {
	case denied:
		r.problem(Fail, "libibverbs lists %s but cannot open it (%s): %s", name, errnoText(o.Err), why)
		r.fix("see uverbs-perms")
	case errors.Is(o.Err, syscall.EACCES), errors.Is(o.Err, syscall.EPERM):
		r.problem(Fail, "libibverbs lists %s but cannot open it: %v", name, o.Err)
		r.fix("see uverbs-perms: this user may not open the device's /dev/infiniband/uverbs node")
	default:
		r.problem(Fail, "libibverbs lists %s but cannot open it: %v", name, o.Err)
		r.fix("dmesg shows the kernel's side; IBV_SHOW_WARNINGS=1 ibv_devinfo the library's")
	}
}

// devHidden explains a kernel device that libibverbs does not list.
func devHidden(r *result, h *sysfsmon.Host, d sysfsmon.Device) {
	if d.Uverbs == "" {
		r.judge(Fail, d.Name, "not listed by libibverbs; the device has no uverbs node", srcVerbsList)
		r.problem(Fail, "libibverbs cannot see %s: it has no uverbs device (ib_uverbs not loaded?)", d.Name)
		r.fix("modprobe ib_uverbs")
		return
	}
	r.judge(Fail, d.Name, "in sysfs and netlink, not listed by libibverbs", srcVerbsList)
	if h == nil {
		r.problem(Fail, "libibverbs does not list %s", d.Name)
		return
	}
	c := h.VerbsConf
	var conf []string
	for _, dr := range c.Drivers {
		conf = append(conf, dr.Name+" ("+dr.File+")")
	}
	confText := "missing"
	if c.DirFound {
		confText = "driver " + strings.Join(conf, ", driver ")
		if len(conf) == 0 {
			confText = "no driver lines"
		}
	}
	r.note("libibverbs configuration", confText, c.Dir)
	provText := "none found"
	if c.ProviderDir != "" {
		provText = strings.Join(c.Providers, ", ")
	}
	r.note("provider libraries", provText, when(c.ProviderDir != "", c.ProviderDir)+when(c.ProviderDir == "", "libibverbs/ in the library folders"))
	p := providerFor(d)
	check := fmt.Sprintf("IBV_SHOW_WARNINGS=1 ibv_devices prints why libibverbs skips %s", d.Name)
	switch {
	case p == "":
		r.problem(Fail, "libibverbs does not list %s: its userspace provider is not configured or not installed", d.Name)
		r.fix("install the providers (apt install ibverbs-providers; dnf install libibverbs) and check that %s has a file naming the device's provider", c.Dir)
	case !c.HasDriver(p):
		r.problem(Fail, "libibverbs does not list %s: %s has no \"driver %s\" line, so the %s provider is never loaded", d.Name, c.Dir, p, p)
		r.fix("restore %s/%s.driver with the line \"driver %s\" (Debian and Ubuntu ship it in ibverbs-providers, RHEL in libibverbs); RDMAV_DRIVERS=%s loads the provider without it", c.Dir, p, p, p)
	case !c.HasProvider(p):
		r.problem(Fail, "libibverbs does not list %s: the %s provider library (lib%s-rdmav*.so) is not installed", d.Name, p, p)
		r.fix("install the provider: apt install ibverbs-providers (Debian, Ubuntu), dnf install libibverbs (RHEL)")
	default:
		r.problem(Fail, "libibverbs does not list %s although the %s provider is configured and installed", d.Name, p)
	}
	r.fix("%s", check)
}
