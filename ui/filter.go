package ui

import (
	"strings"

	"github.com/verbscope/verbscope/view"
)

// rowMatcher filters a view whose rows are view rows with the filter
// words of their kind (view.ParseFilterWords: iproute2's state=ERR
// pid=4242 type=RC, values checked against what can exist, and plain
// substrings).
func rowMatcher(kind string) Matcher {
	return func(cols []Column, words []string) (func(*Row) bool, string) {
		fs, err := view.ParseFilterWords(kind, words)
		if err != nil {
			// Keep showing what the valid words select while the rest
			// is being typed.
			plain, _ := plainMatcher(cols, words)
			return plain, strings.TrimPrefix(err.Error(), "view: ")
		}
		return func(r *Row) bool { return r.Fields != nil && fs.Match(r.Fields) }, ""
	}
}
