package data

import (
	"os"
	"testing"
)

func BenchmarkLoadSachs(b *testing.B) {
	if _, err := os.Stat(sachsPath); err != nil {
		b.Skipf("Sachs data not available: %v", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(sachsPath, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProfileSachs(b *testing.B) {
	f, err := Load(sachsPath, "")
	if err != nil {
		b.Skipf("Sachs data not available: %v", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ProfileOf(f)
	}
}
