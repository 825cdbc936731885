package lab

import (
	"fmt"
	"os"
	"strings"
)

// guestKernel is one Debian kernel the lab can boot. Users run many
// kernels and RDMA's netlink, rxe and the functions trace attaches to
// change between them, so the lab boots more than one: the default, and
// the others on request (Cache.Kernel, `verbscope lab --kernel`, or
// $LAB_KERNEL, which `make test LAB_KERNEL=6.12` sets).
type guestKernel struct {
	// Name is what --kernel and $LAB_KERNEL take: the upstream series.
	Name string
	// Package and Version pin the build the lab was measured with. If
	// the archive has moved on, the package linux-image-amd64 of the same
	// suite depends on now is used instead, as long as it is still of
	// this series.
	Package string
	Version string
	// Suite is the Debian suite the package comes from: "" for the
	// host's own apt sources, else a suite fetched with a private apt
	// configuration in the cache (aptsource.go), so that the host's
	// own package lists and what it installs stay as they were.
	Suite string
}

// guestKernels are the kernels the lab boots; the first is the default.
var guestKernels = []guestKernel{
	// Debian 12 (bookworm): the host's own release.
	{Name: "6.1", Package: "linux-image-6.1.0-57-amd64", Version: "6.1.192-3"},
	// Debian 13 (trixie): modules are XZ-compressed, virtio_pci is built
	// in, the bzImage's payload is zstd and the package puts its modules
	// under usr/lib/modules (merged /usr).
	{Name: "6.12", Package: "linux-image-6.12.117+deb13-amd64", Version: "6.12.117-1", Suite: "trixie"},
}

// guestKernelMeta is the package that depends on a suite's current kernel.
const guestKernelMeta = "linux-image-amd64"

// KernelEnv is the environment variable that picks the guest kernel when
// Cache.Kernel is empty: the lab's tests (make lab-test, make vm-test)
// construct their caches without one, so `make test LAB_KERNEL=6.12`
// reaches every boot through it.
const KernelEnv = "LAB_KERNEL"

// lookupKernel returns the guest kernel called name; "" is the default.
func lookupKernel(name string) (guestKernel, error) {
	if name == "" {
		return guestKernels[0], nil
	}
	var names []string
	for _, k := range guestKernels {
		if k.Name == name {
			return k, nil
		}
		names = append(names, k.Name)
	}
	return guestKernel{}, fmt.Errorf("lab: no guest kernel %q: the lab boots %s (the first is the default)", name, strings.Join(names, " or "))
}

// guestKernel is the kernel this cache prepares: c.Kernel, else
// $LAB_KERNEL, else the default.
func (c *Cache) guestKernel() (guestKernel, error) {
	name := c.Kernel
	if name == "" {
		name = os.Getenv(KernelEnv)
	}
	return lookupKernel(name)
}

// debGlob matches the .deb files of this kernel's series in the cache's
// deb folder: "linux-image-6.1.*" holds 6.1.0-57 (and a later 6.1 ABI the
// fallback may bring) but not 6.12.
func (k guestKernel) debGlob() string {
	return "linux-image-" + k.Name + ".*.deb"
}

// ofSeries reports whether a linux-image package belongs to this series.
func (k guestKernel) ofSeries(pkg string) bool {
	return strings.HasPrefix(pkg, "linux-image-"+k.Name+".")
}
