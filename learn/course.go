package learn

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

//go:embed lessons/*.md
var builtin embed.FS

// Course is the built-in course, lessons in order.
func Course() ([]Lesson, error) {
	sub, err := fs.Sub(builtin, "lessons")
	if err != nil {
		return nil, err
	}
	lessons, err := load(sub)
	for i := range lessons {
		lessons[i].Builtin = true
	}
	return lessons, err
}

// LoadDir reads a teacher's pack: the .md files of a directory.
func LoadDir(dir string) ([]Lesson, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("learn: lesson pack %s: %w", dir, err)
	}
	return load(os.DirFS(dir))
}

// load reads every .md file at the top of fsys as a lesson, ordered by
// number. Two files with one number, or none at all, are errors.
func load(fsys fs.FS) ([]Lesson, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, err
	}
	var out []Lesson
	for _, n := range names {
		if strings.EqualFold(path.Base(n), "README.md") {
			continue
		}
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		l, err := parse(n, src)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("learn: no lessons (NN-name.md files) found")
	}
	slices.SortFunc(out, func(a, b Lesson) int { return a.Number - b.Number })
	for i := 1; i < len(out); i++ {
		if out[i].Number == out[i-1].Number {
			return nil, fmt.Errorf("learn: %s and %s are both lesson %d", out[i-1].File, out[i].File, out[i].Number)
		}
	}
	return out, nil
}

// find returns the index of lesson number n.
func find(lessons []Lesson, n int) (int, bool) {
	for i, l := range lessons {
		if l.Number == n {
			return i, true
		}
	}
	return 0, false
}
