package neural

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	X := uniformColumns(31, 100, [2]float64{-2, 2}, [2]float64{0, 10})
	y := targetOf(X, sinPlusSquare)
	m, err := Train(context.Background(), X, y, Options{Hidden: []int{8, 8}, Activation: SiLU, Epochs: 30, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded.Predict(X), m.Predict(X)) {
		t.Fatal("loaded model predicts differently")
	}
	if loaded.ValidationR2() != m.ValidationR2() || loaded.Activation != SiLU || loaded.Inputs != nil {
		t.Fatalf("loaded R² %v activation %q, saved %v %q", loaded.ValidationR2(), loaded.Activation, m.ValidationR2(), m.Activation)
	}
}

func TestLoadRejectsInconsistentModels(t *testing.T) {
	X := uniformColumns(32, 30, [2]float64{-1, 1})
	m, err := Train(context.Background(), X, X[0], Options{Hidden: []int{4}, Epochs: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	corrupt := map[string]func(map[string]any){
		"format":     func(d map[string]any) { d["format"] = 99 },
		"activation": func(d map[string]any) { d["activation"] = "relu" },
		"weights": func(d map[string]any) {
			layer := d["layers"].([]any)[0].(map[string]any)
			layer["weights"] = layer["weights"].([]any)[1:]
		},
		"input std":   func(d map[string]any) { d["input_std"] = []any{0.0} },
		"one layer":   func(d map[string]any) { d["layers"] = d["layers"].([]any)[:1] },
		"input names": func(d map[string]any) { d["inputs"] = []any{"a", "b"} },
	}
	for name, change := range corrupt {
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		change(doc)
		data, _ := json.Marshal(doc)
		if _, err := Load(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: Load accepted a corrupt model", name)
		}
	}
	if _, err := Load(strings.NewReader("{")); err == nil {
		t.Error("Load accepted truncated JSON")
	}
}

// A model trained on some columns of a table names them, and keeps the
// names through Save and Load.
func TestSaveLoadKeepsInputNames(t *testing.T) {
	X := uniformColumns(33, 50, [2]float64{-1, 1}, [2]float64{-1, 1})
	m, err := Train(context.Background(), X, X[0], Options{Hidden: []int{4}, Epochs: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m.Inputs = []string{"mass", "speed"}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded.Inputs, m.Inputs) {
		t.Fatalf("loaded inputs %q, saved %q", loaded.Inputs, m.Inputs)
	}
}
