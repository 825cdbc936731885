package ui

import (
	"strings"

	"github.com/verbscope/verbscope/view"
)

// maxFilterMemo bounds the objects a filter remembers its answer for.
const maxFilterMemo = 50000

// rowMatcher filters a view whose rows are view rows with the filter
// words of their kind (view.ParseFilterWords: iproute2's state=ERR
// pid=4242 type=RC, values checked against what can exist, and plain
// substrings).
func rowMatcher(kind string) matcher {
	return func(cols []column, words []string) (func(*tableRow) bool, string) {
		fs, err := view.ParseFilterWords(kind, words)
		if err != nil {
			// Keep showing what the valid words select while the rest
			// is being typed.
			plain, _ := plainMatcher(cols, words)
			return plain, strings.TrimPrefix(err.Error(), "view: ")
		}
		// A row of an object (tableRow.res) builds its fields for the
		// filter; rows reused across frames share their object, so the
		// answer is kept for it while the words stay the same.
		seen := map[*resObj]bool{}
		return func(r *tableRow) bool {
			if r.Fields != nil || r.res == nil {
				return r.Fields != nil && fs.Match(r.Fields)
			}
			if ok, hit := seen[r.res]; hit {
				return ok
			}
			if len(seen) >= maxFilterMemo {
				clear(seen) // objects of frames long gone
			}
			ok := fs.Match(r.res.x.Row(false))
			seen[r.res] = ok
			return ok
		}, ""
	}
}
