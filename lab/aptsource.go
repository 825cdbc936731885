package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// debianArchive is the mirror used when the host's apt sources name none
// for its own release (a host that never ran apt-get update lists none).
const debianArchive = "http://deb.debian.org/debian"

// debianKeyring holds the Debian archive's signing keys, the trixie ones
// included since Debian 12's debian-archive-keyring 2023.3+deb12u1.
const debianKeyring = "/usr/share/keyrings/debian-archive-keyring.gpg"

// apt runs apt-get or apt-cache for one suite: with no options for the
// host's own sources, and for another suite with a private configuration
// in the cache (its own sources.list, package lists, download cache and an
// empty dpkg status), so fetching a trixie kernel on a bookworm host
// changes neither the host's lists nor what it would install.
type apt struct {
	opts []string
}

// aptFor prepares the apt configuration of a kernel's suite.
func (c *Cache) aptFor(ctx context.Context, k guestKernel) (apt, error) {
	if k.Suite == "" {
		return apt{}, nil
	}
	dir := filepath.Join(c.Dir, "apt", k.Suite)
	empty := filepath.Join(dir, "empty")
	for _, d := range []string{empty, filepath.Join(dir, "lists", "partial"), filepath.Join(dir, "cache", "archives", "partial")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return apt{}, fmt.Errorf("lab: private apt folder for %s: %w", k.Suite, err)
		}
	}
	status := filepath.Join(dir, "status")
	if err := os.WriteFile(status, nil, 0o644); err != nil {
		return apt{}, err
	}
	// Only the Packages index: the host's apt.conf.d may enable more
	// (DEP-11 metadata, 5 MB more for trixie), which a download needs not.
	site := archiveSite(hostIndexTargets(ctx), hostCodename())
	line := fmt.Sprintf("deb [signed-by=%s target=Packages] %s %s main\n", debianKeyring, site, k.Suite)
	list := filepath.Join(dir, "sources.list")
	if err := os.WriteFile(list, []byte(line), 0o644); err != nil {
		return apt{}, err
	}
	return apt{opts: []string{
		"-o", "Dir::Etc::sourcelist=" + list,
		"-o", "Dir::Etc::sourceparts=" + empty,
		"-o", "Dir::Etc::preferences=" + status, // an empty file: no pins
		"-o", "Dir::Etc::preferencesparts=" + empty,
		"-o", "Dir::State::lists=" + filepath.Join(dir, "lists"),
		"-o", "Dir::State::status=" + status,
		"-o", "Dir::State::extended_states=" + filepath.Join(dir, "extended_states"),
		"-o", "Dir::Cache=" + filepath.Join(dir, "cache"),
		"-o", "Acquire::Languages=none",
	}}, nil
}

// command is apt-get or apt-cache with this configuration.
func (a apt) command(ctx context.Context, tool string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, tool, append(append([]string{}, a.opts...), args...)...)
}

// hostIndexTargets asks apt which index files the host's sources name,
// one "SITE CODENAME" line each; apt parses both source formats
// (sources.list and deb822 .sources), so the lab does not.
func hostIndexTargets(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "apt-get", "indextargets", "--format", "$(SITE) $(CODENAME)").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// hostCodename is the host's Debian release (VERSION_CODENAME in
// os-release(5)), or "" when it names none.
func hostCodename() string {
	data, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return ""
	}
	return osReleaseCodename(string(data))
}

// osReleaseCodename reads VERSION_CODENAME from os-release(5) text.
func osReleaseCodename(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "VERSION_CODENAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// archiveSite picks, from `apt-get indextargets --format '$(SITE)
// $(CODENAME)'` output, the mirror serving the host's own release (not
// its -updates or -security suites, whose codenames differ): the mirror
// the host is known to reach. Without one it is Debian's own.
func archiveSite(targets, codename string) string {
	if codename == "" {
		return debianArchive
	}
	for _, l := range strings.Split(targets, "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[1] == codename && (strings.HasPrefix(f[0], "http://") || strings.HasPrefix(f[0], "https://")) {
			return strings.TrimSuffix(f[0], "/")
		}
	}
	return debianArchive
}
