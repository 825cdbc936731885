package ui

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// View is a function of the model: drawn twice it gives the same frame,
// and the model is what an identical model that was never drawn is.
func TestViewIsPure(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"table", nil},
		{"sorted", []string{"G", "s"}},
		{"detail", []string{"enter", "down", "down"}},
		{"help", []string{"?", "pgdown"}},
		{"filter", []string{"/", "t"}},
		{"jump", []string{":", "d"}},
		{"pane", []string{"tab", "l"}},
		{"counters", []string{":", "c", "o", "u", "n", "t", "e", "r", "s", "enter", "G"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drawn := fixtureModel(t, "rxe0", "dark", 100, 30, true)
			fresh := fixtureModel(t, "rxe0", "dark", 100, 30, true)
			send(drawn, tc.keys...)
			send(fresh, tc.keys...)
			first := drawn.View().Content
			if second := drawn.View().Content; second != first {
				t.Errorf("View drew two frames:\n%s\n---\n%s", first, second)
			}
			opts := cmp.Options{
				cmp.Exporter(func(reflect.Type) bool { return true }),
				cmpopts.EquateNaNs(),
				// Functions (the clock, the sources') compare only as nil,
				// channels (each fake shell's) by identity.
				cmp.FilterPath(func(p cmp.Path) bool {
					k := p.Last().Type().Kind()
					return k == reflect.Func || k == reflect.Chan
				}, cmp.Ignore()),
				// Every view points at the model's common, compared once
				// as model.c.
				cmp.FilterPath(func(p cmp.Path) bool {
					sf, ok := p.Last().(cmp.StructField)
					return ok && sf.Type() == reflect.TypeOf((*common)(nil)) && p.Index(-2).Type() != reflect.TypeOf(model{})
				}, cmp.Ignore()),
				// Each textinput's cursor is numbered from a global count.
				cmp.FilterPath(func(p cmp.Path) bool {
					sf, ok := p.Last().(cmp.StructField)
					return ok && sf.Name() == "id" && p.Index(-2).Type().String() == "cursor.Model"
				}, cmp.Ignore()),
			}
			if diff := cmp.Diff(fresh, drawn, opts); diff != "" {
				t.Errorf("View changed the model (-never drawn +drawn):\n%s", diff)
			}
		})
	}
}
