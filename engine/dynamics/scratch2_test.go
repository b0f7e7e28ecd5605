package dynamics

import (
	"context"
	"os"
	"testing"
	"encoding/csv"
	"strconv"
)

func TestScratchSIR(t *testing.T) {
	f, _ := os.Open("/tmp/dynb/data/sir_noise0.csv")
	recs, _ := csv.NewReader(f).ReadAll()
	d := Trajectories{StateNames: recs[0][2:], States: make([][]float64, 3)}
	for _, r := range recs[1:] {
		tt, _ := strconv.ParseFloat(r[0], 64)
		d.Time = append(d.Time, tt)
		d.Trajectory = append(d.Trajectory, r[1])
		for j, s := range r[2:] {
			v, _ := strconv.ParseFloat(s, 64)
			d.States[j] = append(d.States[j], v)
		}
	}
	segs, _ := d.segments()
	train, _, _, _ := split(segs)
	lib := buildLibrary(d.StateNames, 3, true, nil)
	des, _ := buildDesign(context.Background(), train, lib, 3, Settings{})
	all := make([]int, len(des.chunks))
	for i := range all {
		all[i] = i
	}
	p := des.sum(1, all)
	for _, S := range p.candidates(des.cost, 20) {
		if len(S) > 5 { continue }
		var nm []string
		for _, j := range S {
			nm = append(nm, lib[j].Name)
		}
		w, _ := p.solve(S)
		t.Logf("%v rss %.3g", nm, p.rss(S, w))
	}
}
