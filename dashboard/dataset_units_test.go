package dashboard

import (
	"bytes"
	"strings"
	"testing"

	"github.com/discolab/disco/dashboard/api"
)

// The dataset page lists each column's declared unit, escaped, and no units section when
// none were declared (issue 18 item 2).
func TestDatasetPageShowsUnits(t *testing.T) {
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	render := func(units map[string]string) string {
		t.Helper()
		v := &datasetView{P: &api.Project{ID: "proj_x"}, DS: api.Dataset{ID: "ds_x", Name: "newton", Status: "ready", Units: units}, Base: "/projects/proj_x/datasets/ds_x"}
		var buf bytes.Buffer
		if err := pages["dataset.html"].t.ExecuteTemplate(&buf, "content", &page{Data: v}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	html := render(map[string]string{"F": "kg*m/s^2", "m": "kg", "n": "", "<b>": "s"})
	for _, want := range []string{
		"<td>F</td><td><code>kg*m/s^2</code></td>", "<td>m</td><td><code>kg</code></td>",
		"<td>n</td><td><code>1</code></td>", "<td>&lt;b&gt;</td>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s:\n%s", want, html)
		}
	}
	if strings.Index(html, "<td>&lt;b&gt;</td>") > strings.Index(html, "<td>F</td>") {
		t.Error("columns are not listed in name order")
	}
	if html := render(nil); strings.Contains(html, "dataset-units") {
		t.Errorf("a dataset without units has a units section:\n%s", html)
	}
}
