package artifacts

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
)

// Drawing constants for GraphSVG, in SVG user units (pixels).
const (
	nodeRadius   = 22.0
	curveOffset  = 24.0 // bend of parallel and opposite edges
	selfLoopSize = 34.0
)

// GraphSVG draws the graph as an SVG document laid out top-down in layers
// (see layeredLayout: causes above their effects, few crossings), directed
// edges as arrows and undirected edges as plain lines, and edge labels at
// their midpoints. Edges that share a pair of nodes are bent apart so that
// none hides another. Names and labels are XML-escaped.
func GraphSVG(nodes []string, edges []GraphEdge) ([]byte, error) {
	index, err := checkGraph(nodes, edges)
	if err != nil {
		return nil, err
	}
	ends := make([][2]int, len(edges))
	directed := make([]bool, len(edges))
	for k, e := range edges {
		ends[k], directed[k] = [2]int{index[e.From], index[e.To]}, e.Directed
	}
	lay := layeredLayout(nodes, ends, directed)
	pos := lay.pos
	width, height := lay.width, lay.height

	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/></marker></defs>` + "\n")
	b.WriteString(`<g class="edges" stroke="#333" stroke-width="1.5" fill="none">` + "\n")
	pairs := countPairs(edges)
	seen := make(map[[2]string]int)
	var labels bytes.Buffer
	for k, e := range edges {
		from, to := index[e.From], index[e.To]
		key := pairKey(e.From, e.To)
		nth := seen[key]
		seen[key]++
		var path string
		var mid point
		if from == to {
			// Above the node, away from a point below it.
			path, mid = selfLoop(pos[from], point{pos[from].x, pos[from].y + 1})
		} else if via := lay.via[k]; len(via) > 0 {
			path, mid = polylinePath(pos[from], pos[to], via, bendFor(nth, pairs[key]))
		} else {
			bend := bendFor(nth, pairs[key])
			if e.From > e.To {
				// Measure every bend of a pair from the same direction
				// (alphabetical), so the edges of A->B and B->A spread to
				// different sides instead of mirroring onto each other.
				bend = -bend
			}
			path, mid = edgePath(pos[from], pos[to], bend)
		}
		fmt.Fprintf(&b, `<path d="%s"`, path)
		if e.Directed {
			b.WriteString(` marker-end="url(#arrow)"`)
		}
		b.WriteString(`><title>`)
		writeEscaped(&b, edgeTitle(e))
		b.WriteString("</title></path>\n")
		if e.Label != "" {
			fmt.Fprintf(&labels, `<text x="%.2f" y="%.2f" text-anchor="middle" dominant-baseline="central">`, mid.x, mid.y)
			writeEscaped(&labels, e.Label)
			labels.WriteString("</text>\n")
		}
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g class="edge-labels" fill="#555" stroke="#fff" stroke-width="3" paint-order="stroke">` + "\n")
	b.Write(labels.Bytes())
	b.WriteString("</g>\n")
	b.WriteString(`<g class="nodes">` + "\n")
	for i, name := range nodes {
		fmt.Fprintf(&b, `<g><title>`)
		writeEscaped(&b, name)
		fmt.Fprintf(&b, `</title><circle cx="%.2f" cy="%.2f" r="%.0f" fill="#e8f0fa" stroke="#1f77b4" stroke-width="1.5"/>`, pos[i].x, pos[i].y, nodeRadius)
		fmt.Fprintf(&b, `<text x="%.2f" y="%.2f" text-anchor="middle" dominant-baseline="central" stroke="#fff" stroke-width="3" paint-order="stroke">`, pos[i].x, pos[i].y)
		writeEscaped(&b, name)
		b.WriteString("</text></g>\n")
	}
	b.WriteString("</g>\n</svg>\n")
	return b.Bytes(), nil
}

type point struct{ x, y float64 }

// pairKey identifies the unordered node pair of an edge.
func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// countPairs counts the edges between each unordered pair of nodes.
func countPairs(edges []GraphEdge) map[[2]string]int {
	n := make(map[[2]string]int)
	for _, e := range edges {
		n[pairKey(e.From, e.To)]++
	}
	return n
}

// bendFor spreads the edges of one pair symmetrically: a single edge is
// straight, two bend to either side, three are straight and to either side,
// and so on.
func bendFor(nth, total int) float64 {
	return (float64(nth) - float64(total-1)/2) * curveOffset
}

// polylinePath returns a path from the rim of the node at a through via to
// the rim of the node at b, its inner points moved sideways by bend, and the
// path's midpoint.
func polylinePath(a, b point, via []point, bend float64) (string, point) {
	pts := make([]point, 0, len(via)+2)
	for _, p := range via {
		pts = append(pts, point{p.x + bend, p.y})
	}
	start, end := towards(a, pts[0], nodeRadius), towards(b, pts[len(pts)-1], nodeRadius)
	pts = append(append([]point{start}, pts...), end)
	var path bytes.Buffer
	for i, p := range pts {
		if i == 0 {
			fmt.Fprintf(&path, "M %.2f %.2f", p.x, p.y)
		} else {
			fmt.Fprintf(&path, " L %.2f %.2f", p.x, p.y)
		}
	}
	return path.String(), polylineMid(pts)
}

// edgePath returns a quadratic Bézier path from the rim of the node at a to
// the rim of the node at b, bent sideways by bend, and the curve's midpoint.
func edgePath(a, b point, bend float64) (string, point) {
	dx, dy := b.x-a.x, b.y-a.y
	length := math.Hypot(dx, dy)
	ux, uy := dx/length, dy/length
	// Control point: the chord's midpoint moved along the normal by 2*bend,
	// which puts the curve's own midpoint bend away from the chord.
	ctrl := point{(a.x+b.x)/2 - uy*2*bend, (a.y+b.y)/2 + ux*2*bend}
	start := towards(a, ctrl, nodeRadius)
	end := towards(b, ctrl, nodeRadius)
	mid := point{0.25*start.x + 0.5*ctrl.x + 0.25*end.x, 0.25*start.y + 0.5*ctrl.y + 0.25*end.y}
	if bend == 0 {
		return fmt.Sprintf("M %.2f %.2f L %.2f %.2f", start.x, start.y, end.x, end.y), mid
	}
	return fmt.Sprintf("M %.2f %.2f Q %.2f %.2f %.2f %.2f", start.x, start.y, ctrl.x, ctrl.y, end.x, end.y), mid
}

// selfLoop returns a loop on the side of the node at p away from c and the loop's outermost point for its label.
func selfLoop(p, c point) (string, point) {
	dx, dy := p.x-c.x, p.y-c.y
	if d := math.Hypot(dx, dy); d > 0 {
		dx, dy = dx/d, dy/d
	} else {
		dx, dy = 0, -1
	}
	// Leave and re-enter the rim 35 degrees either side of the outward
	// direction, with control points pushed out to form a loop.
	rot := func(angle float64) (float64, float64) {
		s, c := math.Sincos(angle)
		return dx*c - dy*s, dx*s + dy*c
	}
	ax, ay := rot(-0.6)
	bx, by := rot(0.6)
	start := point{p.x + ax*nodeRadius, p.y + ay*nodeRadius}
	end := point{p.x + bx*nodeRadius, p.y + by*nodeRadius}
	reach := nodeRadius + 2*selfLoopSize
	c1 := point{p.x + ax*reach, p.y + ay*reach}
	c2 := point{p.x + bx*reach, p.y + by*reach}
	top := point{p.x + dx*(nodeRadius+1.5*selfLoopSize), p.y + dy*(nodeRadius+1.5*selfLoopSize)}
	return fmt.Sprintf("M %.2f %.2f C %.2f %.2f %.2f %.2f %.2f %.2f", start.x, start.y, c1.x, c1.y, c2.x, c2.y, end.x, end.y), top
}

// towards returns the point at distance d from p in the direction of q.
func towards(p, q point, d float64) point {
	dx, dy := q.x-p.x, q.y-p.y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return p
	}
	return point{p.x + dx/l*d, p.y + dy/l*d}
}

// edgeTitle is the tooltip of an edge, e.g. "a -> b (label)".
func edgeTitle(e GraphEdge) string {
	arrow := " -- "
	if e.Directed {
		arrow = " -> "
	}
	t := e.From + arrow + e.To
	if e.Label != "" {
		t += " (" + e.Label + ")"
	}
	return t
}

// writeEscaped writes s as XML character data, escaping markup characters and
// both quote kinds so it is safe in text and attributes alike.
func writeEscaped(b *bytes.Buffer, s string) {
	// xml.EscapeText only fails when the writer fails; a bytes.Buffer does not.
	_ = xml.EscapeText(b, []byte(s))
}
