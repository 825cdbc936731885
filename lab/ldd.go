package lab

import (
	"bufio"
	"fmt"
	"os/exec"
	"path"
	"strings"
)

// parseLdd reads ldd(1) output and returns the libraries it resolved, in
// order, and the sonames it could not find. The vDSO has no file and is
// left out.
func parseLdd(out string) (libs, missing []string) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "linux-vdso") || strings.HasPrefix(line, "linux-gate") {
			continue
		}
		if name, target, ok := strings.Cut(line, "=>"); ok {
			target = strings.TrimSpace(target)
			if strings.HasPrefix(target, "not found") {
				missing = append(missing, strings.TrimSpace(name))
				continue
			}
			if p := firstField(target); strings.HasPrefix(p, "/") {
				libs = append(libs, p)
			}
			continue
		}
		// The dynamic loader's own line: "/lib64/ld-linux-x86-64.so.2 (0x...)".
		if p := firstField(line); strings.HasPrefix(p, "/") {
			libs = append(libs, p)
		}
	}
	return libs, missing
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// imagePath maps a host path to where it lives in the guest image. The image
// is merged-/usr like Debian 12: /lib, /lib64 and /sbin-style paths move under
// usr/, and the image links /lib -> usr/lib and /lib64 -> usr/lib64.
func imagePath(p string) string {
	p = path.Clean("/" + p)
	for _, d := range []string{"/lib/", "/lib64/"} {
		if strings.HasPrefix(p, d) {
			return "usr" + p
		}
	}
	return strings.TrimPrefix(p, "/")
}

// sharedLibs runs ldd on a host ELF file. Static binaries have none.
func sharedLibs(file string) ([]string, error) {
	out, err := exec.Command("ldd", file).CombinedOutput()
	s := string(out)
	if err != nil {
		if strings.Contains(s, "not a dynamic executable") || strings.Contains(s, "statically linked") {
			return nil, nil
		}
		return nil, fmt.Errorf("lab: ldd %s: %v: %s", file, err, strings.TrimSpace(s))
	}
	libs, missing := parseLdd(s)
	if len(missing) > 0 {
		return nil, fmt.Errorf("lab: %s needs libraries this host lacks: %s", file, strings.Join(missing, ", "))
	}
	return libs, nil
}
