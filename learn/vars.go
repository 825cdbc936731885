package learn

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// varRE is a {name} a lesson leaves to the host: {dev}, {gid_index},
// {ip}.
var varRE = regexp.MustCompile(`\{([a-z_]+)\}`)

// Expand fills in a course's {name}s with this host's values (the
// device, its RoCE v2 GID index and IPv4 address): in the text, the
// hints, the solutions, the setup and the programs. A lesson that needs
// a value the host lacks is marked to be skipped, saying which.
func Expand(lessons []Lesson, vars map[string]string) []Lesson {
	out := make([]Lesson, len(lessons))
	for i, l := range lessons {
		var missing []string
		x := func(s string) string {
			return varRE.ReplaceAllStringFunc(s, func(m string) string {
				name := m[1 : len(m)-1]
				if v := vars[name]; v != "" {
					return v
				}
				if !contains(missing, name) {
					missing = append(missing, name)
				}
				return m
			})
		}
		xl := func(ls []Line) []Line {
			out := make([]Line, len(ls))
			for k, ln := range ls {
				out[k] = Line{Text: x(ln.Text), Refused: ln.Refused}
			}
			return out
		}
		l.Intro, l.Setup = x(l.Intro), xl(l.Setup)
		l.Background = append([]string(nil), l.Background...)
		for k := range l.Background {
			l.Background[k] = x(l.Background[k])
		}
		l.Steps = append([]Step(nil), l.Steps...)
		for k := range l.Steps {
			s := &l.Steps[k]
			s.Text, s.Hint, s.Done, s.Solution = x(s.Text), x(s.Hint), x(s.Done), xl(s.Solution)
		}
		if len(missing) > 0 && l.Skip == "" {
			l.Skip = "it needs this host's " + strings.Join(missing, ", ") + ", which verbscope could not find (a RoCE device whose netdev has an IPv4 address)"
		}
		out[i] = l
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// HostVars are the values lessons leave to the host: the device the
// shell opens (dev: the one named, else the first), and its port 1's
// RoCE v2 GID of an IPv4 address (gid_index, ip), as rc_pingpong's -g
// wants them; gidIndex, when above 0, is the one to use. What sysfs
// does not show stays out, and Expand skips the lessons needing it.
func HostVars(dev string, gidIndex int) map[string]string {
	vars := map[string]string{}
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return vars
	}
	devs, _ := fsys.Devices()
	for _, d := range devs {
		if dev != "" && d.Name != dev {
			continue
		}
		vars["dev"] = d.Name
		for _, p := range d.Ports {
			want := p.RecommendedGIDIndex
			if gidIndex > 0 {
				want = gidIndex
			}
			for _, g := range p.GIDs {
				if p.Port == 1 && g.Index == want && g.IPv4 {
					vars["gid_index"], vars["ip"] = strconv.Itoa(g.Index), g.IP
				}
			}
		}
		break
	}
	return vars
}
