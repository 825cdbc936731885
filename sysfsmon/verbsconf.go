package sysfsmon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// VerbsConf is how libibverbs finds the userspace driver (provider) of a
// kernel device: a "driver NAME" line in a file of /etc/libibverbs.d
// names the provider, and the provider is the library
// libNAME-rdmav<ABI>.so in libibverbs' provider folder (rdma-core's
// libibverbs/man/ibv_get_device_list.3 and Documentation/libibverbs.md).
// A kernel device whose provider is not configured is silently left out
// of ibv_get_device_list (IBV_SHOW_WARNINGS=1 prints "no userspace
// device-specific driver found").
type VerbsConf struct {
	// Dir is the configuration folder, "/etc/libibverbs.d"; DirFound says
	// whether it exists.
	Dir      string `json:"dir"`
	DirFound bool   `json:"dir_found"`
	// Drivers are the provider names the folder's files configure, with
	// the file each comes from, in file name order.
	Drivers []VerbsDriver `json:"drivers"`
	// ProviderDir is the folder where the provider libraries were found
	// ("" when none was); Providers their names ("rxe" for
	// librxe-rdmav34.so), sorted.
	ProviderDir string   `json:"provider_dir"`
	Providers   []string `json:"providers"`
}

// VerbsDriver is one "driver NAME" line of /etc/libibverbs.d.
type VerbsDriver struct {
	Name string `json:"name"`
	File string `json:"file"` // "/etc/libibverbs.d/rxe.driver"
}

// HasDriver reports whether a provider is configured.
func (c VerbsConf) HasDriver(name string) bool {
	return slices.ContainsFunc(c.Drivers, func(d VerbsDriver) bool { return d.Name == name })
}

// HasProvider reports whether a provider's library is installed.
func (c VerbsConf) HasProvider(name string) bool { return slices.Contains(c.Providers, name) }

const verbsConfDir = "/etc/libibverbs.d"

// verbsConf reads /etc/libibverbs.d and the provider folder under the
// host root.
func (f *FS) verbsConf(ws *warnings) VerbsConf {
	c := VerbsConf{Dir: verbsConfDir}
	dir := f.rootPath(verbsConfDir)
	names, err := f.listDir(dir)
	if err != nil {
		ws.add(f, dir, err)
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		c.DirFound = true
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".driver") {
			continue
		}
		path := filepath.Join(dir, n)
		s, err := f.read(path)
		if err != nil {
			ws.add(f, path, err)
			continue
		}
		drivers, err := parseDriverConf(s)
		if err != nil {
			ws.add(f, path, err)
		}
		for _, d := range drivers {
			c.Drivers = append(c.Drivers, VerbsDriver{Name: d, File: verbsConfDir + "/" + n})
		}
	}
	for _, d := range rdmaCoreLibDirs {
		pdir := f.rootPath(d, "libibverbs")
		libs, _ := f.listDir(pdir)
		for _, l := range libs {
			if p := parseProviderName(l); p != "" && !slices.Contains(c.Providers, p) {
				c.Providers = append(c.Providers, p)
			}
		}
		if len(c.Providers) > 0 {
			c.ProviderDir = "/" + filepath.ToSlash(filepath.Join(d, "libibverbs"))
			break
		}
	}
	slices.Sort(c.Providers)
	return c
}

// parseDriverConf reads one file of /etc/libibverbs.d: "driver NAME"
// lines, blank lines and # comments. Other lines are named in the error;
// the drivers found are returned either way.
func parseDriverConf(data string) ([]string, error) {
	var out []string
	var bad []error
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || f[0] != "driver" || strings.ContainsAny(f[1], "/\x00") {
			bad = append(bad, fmt.Errorf("line %d: %q: want \"driver NAME\"", i+1, line))
			continue
		}
		out = append(out, f[1])
	}
	return out, errors.Join(bad...)
}

// parseProviderName returns the provider a library file name in
// libibverbs' provider folder carries: "librxe-rdmav34.so" is "rxe". Other
// names give "".
func parseProviderName(file string) string {
	rest, ok := strings.CutPrefix(file, "lib")
	if !ok {
		return ""
	}
	name, abi, ok := strings.Cut(rest, "-rdmav")
	if !ok || name == "" {
		return ""
	}
	num, ok := strings.CutSuffix(abi, ".so")
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
		return ""
	}
	return name
}
