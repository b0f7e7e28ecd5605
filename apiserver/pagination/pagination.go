// Package pagination implements the contract's cursor pagination over in-memory item sets
// (the facade reads from the controller-runtime cache, so a list is a slice first).
//
// Pages are keyset pages on (sort key, id): the cursor remembers the last item's sort key
// and id, and the next page starts strictly after it. Items that arrive between two
// requests therefore never shift an existing item onto a page twice or off every page.
// Cursors are opaque and tamper-proof: the keyset position and the sort, order and filters
// it was issued for are HMAC-SHA256 signed, so a cursor cannot be forged, edited or reused
// with a different query.
package pagination

import (
	"container/heap"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// Limits of the contract.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Orders.
const (
	Asc  = "asc"
	Desc = "desc"
)

// Key is one item's value of the sort field: a string or a number. Times are strings in a
// fixed-width UTC layout, so they sort as strings.
type Key struct {
	S   string  `json:"s,omitempty"`
	N   float64 `json:"n,omitempty"`
	Num bool    `json:"d,omitempty"`
}

// String returns a string key.
func String(s string) Key { return Key{S: s} }

// Number returns a numeric key.
func Number(f float64) Key { return Key{N: f, Num: true} }

// timeLayout is fixed-width, so lexical order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// Time returns a key that orders by t.
func Time(t time.Time) Key { return Key{S: t.UTC().Format(timeLayout)} }

// Compare orders keys: numbers before strings, then by value. Indexes that must page
// exactly like Paginate (apiserver/listindex) order by it too.
func Compare(a, b Key) int {
	switch {
	case a.Num && !b.Num:
		return -1
	case !a.Num && b.Num:
		return 1
	case a.Num:
		switch {
		case a.N < b.N:
			return -1
		case a.N > b.N:
			return 1
		}
		return 0
	}
	return strings.Compare(a.S, b.S)
}

// Cursor is the decoded content of an opaque cursor.
type Cursor struct {
	List   string `json:"l,omitempty"`
	Sort   string `json:"s"`
	Order  string `json:"o"`
	Filter string `json:"f,omitempty"`
	Key    Key    `json:"k"`
	ID     string `json:"i"`
}

// ErrInvalid is returned for any cursor that does not decode and verify.
var ErrInvalid = errors.New("invalid cursor")

// Codec signs and verifies cursors.
type Codec struct{ key []byte }

// NewCodec returns a codec that signs with key (at least 32 bytes recommended).
func NewCodec(key []byte) *Codec { return &Codec{key: append([]byte(nil), key...)} }

const macSize = 16 // 128 bits of HMAC-SHA256 are plenty to make forgery hopeless

// Encode returns the opaque form of c.
func (k *Codec) Encode(c Cursor) string {
	payload, _ := json.Marshal(c)
	m := hmac.New(sha256.New, k.key)
	m.Write(payload)
	return base64.RawURLEncoding.EncodeToString(append(payload, m.Sum(nil)[:macSize]...))
}

// Decode verifies s and returns its content.
func (k *Codec) Decode(s string) (Cursor, error) {
	if len(s) > 4096 {
		return Cursor{}, ErrInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) <= macSize {
		return Cursor{}, ErrInvalid
	}
	payload, sum := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	m := hmac.New(sha256.New, k.key)
	m.Write(payload)
	if !hmac.Equal(sum, m.Sum(nil)[:macSize]) {
		return Cursor{}, ErrInvalid
	}
	var c Cursor
	if err := json.Unmarshal(payload, &c); err != nil {
		return Cursor{}, ErrInvalid
	}
	return c, nil
}

// Spec describes how a kind of item is sorted.
type Spec[T any] struct {
	// Name identifies the list; a cursor of one list is refused by another.
	Name string
	// Fields maps each sortable field name to its key.
	Fields map[string]func(T) Key
	// DefaultSort is used when the request names none.
	DefaultSort string
	// DefaultOrder is used when the request names none.
	DefaultOrder string
	// ID returns the item's unique id, the tie-breaker.
	ID func(T) string
}

// Request is what the client asked for, after huma has checked types and bounds.
type Request struct {
	Limit  int
	Cursor string
	Sort   string
	Order  string
	// Filter is a canonical form of the list's filters; a cursor only continues the list it
	// was issued for.
	Filter string
}

// Page is one page of a list.
type Page[T any] struct {
	Items      []T
	HasMore    bool
	NextCursor string
	Total      int
}

// Error is a problem with the request, meant for a 400; Param names the query parameter.
type Error struct {
	Param   string
	Message string
}

func (e *Error) Error() string { return e.Param + ": " + e.Message }

// Paginate returns the requested page of items (already filtered) in the requested
// order. items is not modified.
func Paginate[T any](codec *Codec, items []T, spec Spec[T], req Request) (Page[T], error) {
	limit := req.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return Page[T]{}, &Error{Param: "limit", Message: "must be between 1 and 100"}
	}
	sortField, order := req.Sort, req.Order
	var after *Cursor
	if req.Cursor != "" {
		c, err := codec.Decode(req.Cursor)
		if err != nil {
			return Page[T]{}, &Error{Param: "cursor", Message: "not a cursor issued by this list"}
		}
		if c.List != spec.Name || (sortField != "" && sortField != c.Sort) || (order != "" && order != c.Order) || c.Filter != req.Filter {
			return Page[T]{}, &Error{Param: "cursor", Message: "the cursor belongs to a different sort, order or filter"}
		}
		sortField, order = c.Sort, c.Order
		after = &c
	}
	if sortField == "" {
		sortField = spec.DefaultSort
	}
	keyOf, ok := spec.Fields[sortField]
	if !ok {
		return Page[T]{}, &Error{Param: "sort", Message: "cannot sort by " + sortField + "; sortable fields: " + strings.Join(fieldNames(spec), ", ")}
	}
	if order == "" {
		order = spec.DefaultOrder
	}
	if order != Asc && order != Desc {
		return Page[T]{}, &Error{Param: "order", Message: "must be asc or desc"}
	}

	keys := make([]Key, len(items))
	ids := make([]string, len(items))
	for i, it := range items {
		keys[i] = keyOf(it)
		ids[i] = spec.ID(it)
	}
	// compareAt compares items a and b in the requested order.
	compareAt := func(a, b int) int {
		c := Compare(keys[a], keys[b])
		if c == 0 {
			c = strings.Compare(ids[a], ids[b])
		}
		if order == Desc {
			return -c
		}
		return c
	}
	// before reports whether item a comes before item b in the requested order.
	before := func(a, b int) bool { return compareAt(a, b) < 0 }
	// afterCursor reports whether item i comes strictly after the cursor position.
	afterCursor := func(i int) bool {
		if after == nil {
			return true
		}
		c := Compare(keys[i], after.Key)
		if c == 0 {
			c = strings.Compare(ids[i], after.ID)
		}
		if order == Desc {
			return c < 0
		}
		return c > 0
	}
	// Select the first limit+1 items after the cursor with a bounded heap: O(n log k)
	// rather than sorting every item for every page.
	h := &topK{before: before}
	for i := range items {
		if !afterCursor(i) {
			continue
		}
		if h.Len() <= limit {
			heap.Push(h, i)
		} else if before(i, h.idx[0]) {
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	sel := h.idx
	slices.SortFunc(sel, compareAt)

	page := Page[T]{Total: len(items), Items: make([]T, 0, min(limit, len(sel)))}
	for _, i := range sel[:min(limit, len(sel))] {
		page.Items = append(page.Items, items[i])
	}
	if len(sel) > limit {
		last := sel[limit-1]
		page.HasMore = true
		page.NextCursor = codec.Encode(Cursor{List: spec.Name, Sort: sortField, Order: order, Filter: req.Filter, Key: keys[last], ID: ids[last]})
	}
	return page, nil
}

func fieldNames[T any](spec Spec[T]) []string {
	out := make([]string, 0, len(spec.Fields))
	for k := range spec.Fields {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// topK is a heap whose root is the item that comes last in the requested order, so the
// root is the one to drop when a better item arrives.
type topK struct {
	idx    []int
	before func(a, b int) bool
}

func (h *topK) Len() int           { return len(h.idx) }
func (h *topK) Less(a, b int) bool { return h.before(h.idx[b], h.idx[a]) }
func (h *topK) Swap(a, b int)      { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *topK) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *topK) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}
