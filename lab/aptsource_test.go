package lab

import (
	"strings"
	"testing"
)

// What `apt-get indextargets --format '$(SITE) $(CODENAME)'` says on a
// Debian 12 host whose sources name a local mirror.
const bookwormTargets = `http://mirror.example/debian-security bookworm-security
http://mirror.example/debian bookworm-updates
http://mirror.example/debian/ bookworm
http://mirror.example/debian bookworm
`

func TestArchiveSite(t *testing.T) {
	for _, tc := range []struct {
		name, targets, codename, want string
	}{
		{"the release's own mirror", bookwormTargets, "bookworm", "http://mirror.example/debian"},
		{"no lists yet", "", "bookworm", debianArchive},
		{"no codename", bookwormTargets, "", debianArchive},
		{"only other suites", "http://m/debian-security bookworm-security\n", "bookworm", debianArchive},
		{"not a web mirror", "file:/srv/debian bookworm\ncdrom:[Debian] bookworm\n", "bookworm", debianArchive},
	} {
		if got := archiveSite(tc.targets, tc.codename); got != tc.want {
			t.Errorf("%s: archiveSite = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestOSReleaseCodename(t *testing.T) {
	for in, want := range map[string]string{
		"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n": "bookworm",
		"VERSION_CODENAME=\"trixie\"\n": "trixie",
		"ID=debian\n":                   "",
	} {
		if got := osReleaseCodename(in); got != want {
			t.Errorf("osReleaseCodename(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzArchiveSite(f *testing.F) {
	f.Add(bookwormTargets, "bookworm")
	f.Add("http://x bookworm extra\n\n", "bookworm")
	f.Fuzz(func(t *testing.T, targets, codename string) {
		got := archiveSite(targets, codename)
		if !strings.HasPrefix(got, "http://") && !strings.HasPrefix(got, "https://") {
			t.Fatalf("archiveSite = %q, not a web mirror", got)
		}
		if strings.ContainsAny(got, " \n\t") {
			t.Fatalf("archiveSite = %q: a sources.list line would break on it", got)
		}
	})
}

func FuzzOSReleaseCodename(f *testing.F) {
	f.Add("VERSION_CODENAME=bookworm\n")
	f.Fuzz(func(t *testing.T, s string) {
		if got := osReleaseCodename(s); strings.Contains(got, "\n") {
			t.Fatalf("codename %q spans lines", got)
		}
	})
}
