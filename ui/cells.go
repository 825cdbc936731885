package ui

import (
	"fmt"
	"math"

	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// fromFields makes a table row of a view row: each column's cell is
// the text of the field with its key (the JSON value when the field is
// JSON-only), its sort value the field's number.
func fromFields(cols []column, index map[string]int, r view.Row) tableRow {
	row := tableRow{Cells: make([]string, len(cols)), Nums: make([]float64, len(cols)), Fields: r}
	set := make([]bool, len(cols))
	for i := range row.Nums {
		row.Nums[i] = math.NaN()
	}
	for _, f := range r {
		if f.Key == view.IDKey {
			row.Key = f.Text
			continue
		}
		i, ok := index[f.Key]
		if !ok || set[i] && f.NoText {
			continue
		}
		text := f.Display()
		if f.NoText && text == "" && f.Value != nil {
			text = fmt.Sprint(f.Value)
		}
		row.Cells[i], set[i] = text, !f.NoText
		if f.IsNum {
			row.Nums[i] = float64(f.Num)
		}
	}
	return row
}

func colIndex(cols []column) map[string]int {
	index := make(map[string]int, len(cols))
	for i, c := range cols {
		index[c.Key] = i
	}
	return index
}

// dash shows an empty value as "-".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func col(key, title string, prio int, right bool) column {
	return column{Key: key, Title: title, Prio: prio, Right: right}
}

// cellLines are a row's cells under their column titles, the detail of
// a view that has nothing more to say of a row.
func cellLines(th *themes.Theme, cols []column, row tableRow) []string {
	var out []string
	for i, c := range cols {
		if i < len(row.Cells) && c.Title != "" {
			out = append(out, th.Render(themes.SlotHeader, padTo(c.Title, 16))+row.Cells[i])
		}
	}
	return out
}
