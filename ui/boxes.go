package ui

import (
	"slices"
	"strings"

	"github.com/verbscope/verbscope/themes"
)

// twoColumns is the width from which the overview puts its boxes side by
// side: two 50-cell boxes still hold a port's line.
const twoColumns = 100

// box is one summary of the overview: a titled frame around its lines.
type box struct {
	key, title, view string
	prio             int
	lines            []string
	// more counts the lines left out of lines, which no height the box
	// can get would show.
	more int
}

// boxRect is where a box is drawn and how tall.
type boxRect struct {
	box        box
	x, y, w, h int
}

// placeBoxes lays the boxes out in w×h: two columns from twoColumns
// (ports over IRQs, QPs over events), else one (ports, QPs, events,
// IRQs). In each column every box kept gets a line, the boxes that need
// more get it in priority order, and a box that no longer fits even its
// one line is dropped, least important first.
func placeBoxes(boxes []box, w, h int) []boxRect {
	byView := map[string]box{}
	for _, b := range boxes {
		byView[b.view] = b
	}
	col := func(x, cw int, views ...string) []boxRect {
		var bs []box
		for _, v := range views {
			bs = append(bs, byView[v])
		}
		return stack(bs, x, cw, h)
	}
	if w >= twoColumns {
		left := w / 2
		return append(col(0, left, "port", "irq"), col(left, w-left, "qp", "events")...)
	}
	return col(0, w, "port", "qp", "events", "irq")
}

// stack shares h rows among boxes drawn one under another, w wide.
func stack(boxes []box, x, w, h int) []boxRect {
	const frame = 2 // a box's top and bottom rules
	order := make([]int, len(boxes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return boxes[a].prio - boxes[b].prio })
	rows := make([]int, len(boxes)) // content rows; 0: dropped
	used := 0
	for _, i := range order {
		if used+frame+1 <= h {
			rows[i], used = 1, used+frame+1
		}
	}
	for _, i := range order {
		if rows[i] > 0 {
			more := min(max(0, len(boxes[i].lines)-1), h-used)
			rows[i], used = rows[i]+more, used+more
		}
	}
	last := -1
	for i := range boxes {
		if rows[i] > 0 {
			last = i
		}
	}
	if last >= 0 {
		rows[last] += h - used // the bottom box takes what is left
	}
	var out []boxRect
	y := 0
	for i, b := range boxes {
		if rows[i] == 0 {
			continue
		}
		out = append(out, boxRect{box: b, x: x, y: y, w: w, h: rows[i] + frame})
		y += rows[i] + frame
	}
	return out
}

// renderBoxes draws the boxes placed in w×h, exactly h lines of w cells.
func renderBoxes(th *themes.Theme, boxes []box, w, h int) string {
	screen := make([]string, h)
	// Each line's cells so far: a box's lines are its width by
	// construction (drawBox), so the screen's lines are never measured.
	cells := make([]int, h)
	for _, r := range placeBoxes(boxes, w, h) {
		for i, l := range drawBox(th, r) {
			if y := r.y + i; y < h {
				screen[y] += spaces(r.x-cells[y]) + l
				cells[y] = max(cells[y], r.x) + r.w
			}
		}
	}
	for i := range screen {
		screen[i] += spaces(w - cells[i])
	}
	return strings.Join(screen, "\n")
}

// drawBox is a box's lines: the rule with its key and title, the
// content cut to the box (the last line says how many more), the rule
// under it.
func drawBox(th *themes.Theme, r boxRect) []string {
	h, v, tl, tr, bl, br := "─", "│", "┌", "┐", "└", "┘"
	if th.ASCII {
		h, v, tl, tr, bl, br = "-", "|", "+", "+", "+", "+"
	}
	inner := r.w - 2
	title := h + " " + r.box.key + " " + r.box.title + " "
	top := th.Render(themes.SlotBorder, tl) + th.Render(themes.SlotTitle, truncate(title, inner, "")) +
		th.Render(themes.SlotBorder, strings.Repeat(h, max(0, inner-width(title)))+tr)
	out := []string{top}
	n := r.h - 2
	lines := r.box.lines
	if len(lines)+r.box.more > n && n > 0 {
		more := len(lines) + r.box.more - (n - 1)
		lines = append(lines[:n-1:n-1], th.Render(themes.SlotDim, "… "+itoa(more)+" more ("+r.box.key+" shows all)"))
	}
	side := th.Render(themes.SlotBorder, v)
	for i := 0; i < n; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out = append(out, side+pad(truncate(l, inner, "…"), inner)+side)
	}
	return append(out, th.Render(themes.SlotBorder, bl+strings.Repeat(h, inner)+br))
}
