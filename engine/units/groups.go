package units

// Groups returns a basis of the dimensionless products of variables with
// the given dimensions (Buckingham's π theorem, Buckingham 1914): each group
// is a vector of integer exponents x with Π dims[j]^x[j] dimensionless, and
// every dimensionless product of the variables is a product of powers of
// the groups. There are len(dims) − rank(D) of them, D being the 7 × n
// dimension matrix whose column j holds dims[j]'s exponents.
//
// The basis is the null space of D computed exactly in rational arithmetic
// by reduced row echelon form, which gives the small integer exponents a
// π-group is written with (a floating-point null space, as from an SVD, is
// orthonormal and not integral). Pivots are taken left to right, so the
// variables late in the list are the free ones: group k contains the k-th
// free variable with a positive exponent and no other free variable. To
// get, say, a group of the form y·Π x^e, list y last.
func Groups(dims []Dim) [][]int64 {
	n := len(dims)
	a := make([][]Rat, NumBase)
	for i := range a {
		a[i] = make([]Rat, n)
		for j, d := range dims {
			a[i][j] = d.e[i].norm()
		}
	}
	var pivots []int
	row := 0
	for col := 0; col < n && row < NumBase; col++ {
		p := -1
		for r := row; r < NumBase; r++ {
			if !a[r][col].IsZero() {
				p = r
				break
			}
		}
		if p < 0 {
			continue
		}
		a[row], a[p] = a[p], a[row]
		inv := newRat(a[row][col].Den, a[row][col].Num)
		for j := range a[row] {
			a[row][j] = a[row][j].mul(inv)
		}
		for r := range a {
			if r == row || a[r][col].IsZero() {
				continue
			}
			f := a[r][col]
			for j := range a[r] {
				a[r][j] = a[r][j].add(a[row][j].mul(f).mul(Rat{-1, 1}))
			}
		}
		pivots = append(pivots, col)
		row++
	}
	isPivot := make([]bool, n)
	for _, c := range pivots {
		isPivot[c] = true
	}
	var out [][]int64
	for free := 0; free < n; free++ {
		if isPivot[free] {
			continue
		}
		v := make([]Rat, n)
		v[free] = Rat{1, 1}
		for r, c := range pivots {
			v[c] = a[r][free].mul(Rat{-1, 1})
		}
		out = append(out, integral(v))
	}
	return out
}

// integral scales a rational vector to the smallest integer vector with the
// same direction and sign.
func integral(v []Rat) []int64 {
	l := int64(1)
	for _, r := range v {
		r = r.norm()
		l = l / gcd(l, r.Den) * r.Den
	}
	out := make([]int64, len(v))
	g := int64(0)
	for i, r := range v {
		r = r.norm()
		out[i] = r.Num * (l / r.Den)
		g = gcd(g, abs64(out[i]))
	}
	if g > 1 {
		for i := range out {
			out[i] /= g
		}
	}
	return out
}
