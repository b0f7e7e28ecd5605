package store

import "testing"

// Both dialects must carry the same versions, or a database would end up at a version
// whose tables differ by dialect.
func TestMigrationsMatchAcrossDialects(t *testing.T) {
	lite, err := loadMigrations(SQLite)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := loadMigrations(Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if len(lite) == 0 || len(lite) != len(pg) {
		t.Fatalf("sqlite has %d migrations, postgres %d", len(lite), len(pg))
	}
	for i := range lite {
		if lite[i].version != pg[i].version || lite[i].name != pg[i].name {
			t.Errorf("migration %d: sqlite %04d_%s, postgres %04d_%s", i, lite[i].version, lite[i].name, pg[i].version, pg[i].name)
		}
		if lite[i].version != i+1 {
			t.Errorf("migration versions must be 1..n without gaps; position %d has %d", i, lite[i].version)
		}
	}
}

func TestRebindDollar(t *testing.T) {
	cases := map[string]string{
		"SELECT 1":                      "SELECT 1",
		"a = ? AND b = ?":               "a = $1 AND b = $2",
		`x = '?' AND "y?" = ? OR z = ?`: `x = '?' AND "y?" = $1 OR z = $2`,
		"IN (?, ?, ?)":                  "IN ($1, $2, $3)",
		"a = 'it''s ?' AND b = ?":       "a = 'it''s ?' AND b = $1",
	}
	for in, want := range cases {
		if got := rebindDollar(in); got != want {
			t.Errorf("rebindDollar(%q) = %q, want %q", in, got, want)
		}
	}
}
