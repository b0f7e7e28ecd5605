package dynamicstest

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"testing"
)

// The CSV holds the table's exact values under its names, so that a test
// uploading it fits the same data as one handing the columns over.
func TestLotkaVolterraCSVRoundTrips(t *testing.T) {
	lv, err := LotkaVolterra(0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rows := len(lv.Columns[0]); rows != 8*LotkaVolterraRows {
		t.Fatalf("%d rows, want %d", rows, 8*LotkaVolterraRows)
	}
	recs, err := csv.NewReader(bytes.NewReader(lv.CSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], []string{"traj", "t", "x", "y"}) || len(recs) != len(lv.Columns[0])+1 {
		t.Fatalf("header %v and %d records", recs[0], len(recs))
	}
	for i, rec := range recs[1:] {
		for j, s := range rec {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v != lv.Columns[j][i] {
				t.Fatalf("row %d column %s: %q, want %v", i, lv.Names[j], s, lv.Columns[j][i])
			}
		}
	}
	again, err := LotkaVolterra(0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.CSV(), lv.CSV()) {
		t.Error("the same noise and seed gave other data")
	}
	clean, err := LotkaVolterra(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(clean.Columns[2], lv.Columns[2]) || !slices.Equal(clean.Columns[1], lv.Columns[1]) {
		t.Error("noise must move the states and leave the times")
	}
}
