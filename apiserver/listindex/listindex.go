// Package listindex keeps an in-memory, ordered index of the cached Claim objects per
// project, so a page of a project's claims costs O(log n + limit) instead of O(n).
//
// The controller-runtime cache can only answer "all claims of this project" (a List that
// copies every item into a slice), after which the facade builds a sort key for every item
// and selects the top k: at 100,000 claims that is seconds per page. The index is fed by
// the same shared informer the cache uses (Register adds an event handler), and keeps, per
// project and per filter partition, B-trees ordered exactly like pagination.Paginate orders
// a slice: by (sort key, id), ascending, walked backwards for desc. A page is a walk from the
// cursor position; the total is the partition's size.
//
// Partitions. Every claim is in the partitions of its (namespace, project) for:
// all claims, its type, its tier, its (type, tier) pair, its run and its campaign. A query
// is answered from the smallest partition that covers its Match; filters the partition
// does not cover (e.g. run_id together with type) are checked on the walk, and then the
// total costs a scan of that partition (O(size of the run/campaign/type partition), not of
// the project). The tree for the spec's default sort is kept for every partition; the
// trees for the other sorts of a partition are built on the first query that needs them
// (O(m log m) once) and maintained from then on.
//
// Objects. Page returns pointers to the informer's cached objects. They are shared and
// read-only: callers must not modify them (DeepCopy first if needed). The informer never
// mutates a cached object in place (an update replaces it), so a returned pointer stays
// valid and consistent after the index's lock is released.
package listindex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
)

// Key is a position in a list: the sort key and id of an item, exactly what a
// pagination.Cursor carries in Key and ID.
type Key struct {
	Sort pagination.Key
	Name string
}

// Match holds listClaims' equality filters; an empty field does not filter. Values are
// compared with the raw spec fields (string(c.Spec.Tier) etc.), like listClaims does.
type Match struct {
	RunID      string
	CampaignID string
	Type       string
	Tier       string
}

// Query asks for one page.
type Query struct {
	// Sort is a field of the spec's Fields; "" means the spec's DefaultSort.
	Sort string
	// Desc walks the order backwards.
	Desc bool
	// After is the exclusive position to start after (the cursor's Key and ID); nil starts
	// at the beginning.
	After *Key
	// Limit is the page size; 0 means pagination.DefaultLimit.
	Limit int
	// Match is answered from the partitions (cheap); use it for listClaims' filters.
	Match Match
	// Filter, if not nil, is an extra predicate checked on the walk. It is not indexed: the
	// total then costs a scan of the chosen partition, and a selective Filter makes the walk
	// long. It must not modify the claim and must not call back into the Index.
	Filter func(*discov1.Claim) bool
}

// ErrUnknownSort is returned for a Query.Sort that is not in the spec.
var ErrUnknownSort = errors.New("listindex: unknown sort field")

// Index is the claim index. The zero value is not usable; use New.
type Index struct {
	spec     pagination.Spec[*discov1.Claim]
	sorts    []string       // sorted field names; index = sort slot
	slot     map[string]int // field name -> slot
	keyFuncs []func(*discov1.Claim) pagination.Key

	mu     sync.RWMutex
	byName map[types.NamespacedName]*entry
	parts  map[partKey]*part

	synced func() bool
}

type entry struct {
	c     *discov1.Claim
	id    string
	keys  []pagination.Key // by sort slot
	parts []partKey
	wire  atomic.Pointer[wireForm] // see Wire
}

// wireForm is an encoded claim, with the object it was encoded from.
type wireForm struct {
	c *discov1.Claim
	b []byte
}

type partKey struct {
	ns, project string
	dim         string // "", "type", "tier", "type+tier", "run", "campaign"
	val         string
}

type part struct {
	trees []*btree.BTreeG[*entry] // by sort slot; the default slot is always set
}

func (p *part) len() int { return p.trees[0].Len() }

const degree = 32

// New returns an empty index ordering claims like spec: spec.Fields gives the sort keys and
// spec.ID the tie-breaker (pass the facade's claimSort, so cursors are interchangeable with
// pagination.Paginate's).
func New(spec pagination.Spec[*discov1.Claim]) *Index {
	x := &Index{spec: spec, slot: map[string]int{}, byName: map[types.NamespacedName]*entry{}, parts: map[partKey]*part{}}
	for name := range spec.Fields {
		x.sorts = append(x.sorts, name)
	}
	slices.Sort(x.sorts)
	// The default sort gets slot 0, the eager one.
	for i, name := range x.sorts {
		if name == spec.DefaultSort {
			x.sorts[0], x.sorts[i] = x.sorts[i], x.sorts[0]
		}
	}
	for i, name := range x.sorts {
		x.slot[name] = i
		x.keyFuncs = append(x.keyFuncs, spec.Fields[name])
	}
	return x
}

// InformerGetter is the part of cache.Informers (and so of cache.Cache) Register uses.
type InformerGetter interface {
	GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error)
}

var _ InformerGetter = cache.Cache(nil)

// Register subscribes the index to the Claim informer of informers (the manager's cache,
// mgr.GetCache()). It may be called before the cache is started; HasSynced reports when the
// informer's initial list has been delivered to the index.
func (x *Index) Register(ctx context.Context, informers InformerGetter) error {
	inf, err := informers.GetInformer(ctx, &discov1.Claim{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("listindex: claim informer: %w", err)
	}
	reg, err := inf.AddEventHandler(x)
	if err != nil {
		return fmt.Errorf("listindex: add event handler: %w", err)
	}
	x.mu.Lock()
	x.synced = reg.HasSynced
	x.mu.Unlock()
	return nil
}

// HasSynced reports whether the index holds every claim of the informer's initial list.
// Until then, answer from the cache as before (or wait with WaitForSync).
func (x *Index) HasSynced() bool {
	x.mu.RLock()
	f := x.synced
	x.mu.RUnlock()
	return f != nil && f()
}

// MarkSynced makes HasSynced true without an informer (tests, or an index fed by hand).
func (x *Index) MarkSynced() {
	x.mu.Lock()
	x.synced = func() bool { return true }
	x.mu.Unlock()
}

// WaitForSync blocks until HasSynced or ctx ends.
func (x *Index) WaitForSync(ctx context.Context) error {
	for !x.HasSynced() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// Await waits (until ctx ends) for the index to reflect a write, as the facade's
// awaitCache waits for the cache: the claim is present at resource version written or a
// later one, or absent when written is "gone". Event handlers run just after the cache's
// store is updated, so call it after awaitCache when a request lists right after writing
// a claim.
func (x *Index) Await(ctx context.Context, namespace, name, written string) bool {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	for {
		x.mu.RLock()
		e := x.byName[key]
		done := (written == "gone" && e == nil) || (written != "gone" && e != nil && VersionReached(e.c.ResourceVersion, written))
		x.mu.RUnlock()
		if done {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// VersionReached reports whether an object at resource version have holds a write that
// returned version written: have is written or later. Versions are compared as
// k8s.io/apimachinery's resourceversion.CompareResourceVersion defines (KEP-5504);
// versions it cannot compare only match when equal.
func VersionReached(have, written string) bool {
	if c, err := resourceversion.CompareResourceVersion(have, written); err == nil {
		return c >= 0
	}
	return have == written
}

// Len returns the number of indexed claims.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.byName)
}

// Count returns the number of claims of a project matching m, like Page's total.
func (x *Index) Count(namespace, projectID string, m Match) int {
	_, total, _, _ := x.Page(namespace, projectID, Query{Match: m, Limit: 1})
	return total
}

// Get returns the indexed claim namespace/name, or nil. Like Page's, the object is the
// informer's and read-only.
func (x *Index) Get(namespace, name string) *discov1.Claim {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if e := x.byName[types.NamespacedName{Namespace: namespace, Name: name}]; e != nil {
		return e.c
	}
	return nil
}

// Wire returns encode(c), computed once per cached object and kept with the claim's entry
// (so it goes when the claim goes, and an update, which replaces the object, encodes
// afresh). Encoding a 100-item page was about half of a list request's CPU and most of its
// garbage; with Wire a page of claims listed before costs a copy. c is a pointer Page
// returned; encode must depend only on c, and every caller must pass the same encode.
func (x *Index) Wire(c *discov1.Claim, encode func(*discov1.Claim) []byte) []byte {
	x.mu.RLock()
	e := x.byName[types.NamespacedName{Namespace: c.Namespace, Name: c.Name}]
	x.mu.RUnlock()
	if e == nil {
		return encode(c)
	}
	if w := e.wire.Load(); w != nil && w.c == c {
		return w.b
	}
	b := encode(c)
	e.wire.Store(&wireForm{c: c, b: b})
	return b
}

// --- event handler (toolscache.ResourceEventHandler) ---

var _ toolscache.ResourceEventHandler = (*Index)(nil)

// OnAdd indexes a claim.
func (x *Index) OnAdd(obj any, _ bool) {
	if c, ok := obj.(*discov1.Claim); ok {
		x.Upsert(c)
	}
}

// OnUpdate re-indexes a claim.
func (x *Index) OnUpdate(_, newObj any) {
	if c, ok := newObj.(*discov1.Claim); ok {
		x.Upsert(c)
	}
}

// OnDelete drops a claim; it accepts a tombstone (DeletedFinalStateUnknown).
func (x *Index) OnDelete(obj any) {
	switch o := obj.(type) {
	case *discov1.Claim:
		x.Delete(o.Namespace, o.Name)
	case toolscache.DeletedFinalStateUnknown:
		if c, ok := o.Obj.(*discov1.Claim); ok {
			x.Delete(c.Namespace, c.Name)
			return
		}
		if ns, name, err := toolscache.SplitMetaNamespaceKey(o.Key); err == nil {
			x.Delete(ns, name)
		}
	}
}

// Upsert adds or replaces a claim (the handler's work; exported for tests and for feeding
// the index by hand). c is kept, not copied: it must not be modified afterwards.
func (x *Index) Upsert(c *discov1.Claim) {
	e := &entry{c: c, id: x.spec.ID(c), keys: make([]pagination.Key, len(x.sorts)), parts: partsOf(c)}
	for i, f := range x.keyFuncs {
		e.keys[i] = f(c)
	}
	key := types.NamespacedName{Namespace: c.Namespace, Name: c.Name}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old := x.byName[key]; old != nil {
		if old.id == e.id && sameKeys(old.keys, e.keys) && sameParts(old.parts, e.parts) {
			// Nothing the trees order or partition by changed (e.g. a status update): swap
			// the object in place, O(1).
			old.c = c
			return
		}
		x.remove(old)
	}
	x.byName[key] = e
	for _, pk := range e.parts {
		p := x.parts[pk]
		if p == nil {
			p = &part{trees: make([]*btree.BTreeG[*entry], len(x.sorts))}
			p.trees[0] = btree.NewG(degree, lessAt(0))
			x.parts[pk] = p
		}
		for _, t := range p.trees {
			if t != nil {
				t.ReplaceOrInsert(e)
			}
		}
	}
}

// Delete drops a claim if indexed.
func (x *Index) Delete(namespace, name string) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old := x.byName[key]; old != nil {
		x.remove(old)
		delete(x.byName, key)
	}
}

// remove takes e out of its partitions; the caller holds the write lock.
func (x *Index) remove(e *entry) {
	for _, pk := range e.parts {
		p := x.parts[pk]
		if p == nil {
			continue
		}
		for _, t := range p.trees {
			if t != nil {
				t.Delete(e)
			}
		}
		if p.len() == 0 {
			delete(x.parts, pk)
		}
	}
}

func partsOf(c *discov1.Claim) []partKey {
	ns, pr := c.Namespace, c.Spec.ProjectID
	typ, tier := string(c.Spec.Type), string(c.Spec.Tier)
	out := make([]partKey, 0, 6)
	out = append(out, partKey{ns, pr, "", ""})
	if typ != "" {
		out = append(out, partKey{ns, pr, "type", typ})
	}
	if tier != "" {
		out = append(out, partKey{ns, pr, "tier", tier})
	}
	if typ != "" && tier != "" {
		out = append(out, partKey{ns, pr, "type+tier", typ + "\x00" + tier})
	}
	if c.Spec.RunID != "" {
		out = append(out, partKey{ns, pr, "run", c.Spec.RunID})
	}
	if c.Spec.CampaignID != "" {
		out = append(out, partKey{ns, pr, "campaign", c.Spec.CampaignID})
	}
	return out
}

func sameKeys(a, b []pagination.Key) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameParts(a, b []partKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cmpAt orders entries by (keys[slot], id).
func cmpAt(slot int, a, b *entry) int {
	if c := pagination.Compare(a.keys[slot], b.keys[slot]); c != 0 {
		return c
	}
	return strings.Compare(a.id, b.id)
}

func lessAt(slot int) btree.LessFunc[*entry] {
	return func(a, b *entry) bool { return cmpAt(slot, a, b) < 0 }
}

// --- queries ---

// plan picks the partition answering m and reports which of m's filters it leaves to check.
func (x *Index) plan(ns, project string, m Match) (pk partKey, residual Match, empty bool) {
	type cand struct {
		pk  partKey
		res Match
	}
	var cands []cand
	if m.RunID != "" {
		r := m
		r.RunID = ""
		cands = append(cands, cand{partKey{ns, project, "run", m.RunID}, r})
	}
	if m.CampaignID != "" {
		r := m
		r.CampaignID = ""
		cands = append(cands, cand{partKey{ns, project, "campaign", m.CampaignID}, r})
	}
	switch {
	case m.Type != "" && m.Tier != "":
		r := m
		r.Type, r.Tier = "", ""
		cands = append(cands, cand{partKey{ns, project, "type+tier", m.Type + "\x00" + m.Tier}, r})
	case m.Type != "":
		r := m
		r.Type = ""
		cands = append(cands, cand{partKey{ns, project, "type", m.Type}, r})
	case m.Tier != "":
		r := m
		r.Tier = ""
		cands = append(cands, cand{partKey{ns, project, "tier", m.Tier}, r})
	}
	if len(cands) == 0 {
		return partKey{ns, project, "", ""}, Match{}, false
	}
	best, bestLen := -1, 0
	for i, c := range cands {
		p := x.parts[c.pk]
		if p == nil {
			return c.pk, c.res, true // some filter matches nothing
		}
		if best < 0 || p.len() < bestLen {
			best, bestLen = i, p.len()
		}
	}
	return cands[best].pk, cands[best].res, false
}

func (m Match) none() bool { return m == Match{} }

func (m Match) matches(c *discov1.Claim) bool {
	return (m.RunID == "" || c.Spec.RunID == m.RunID) &&
		(m.CampaignID == "" || c.Spec.CampaignID == m.CampaignID) &&
		(m.Type == "" || string(c.Spec.Type) == m.Type) &&
		(m.Tier == "" || string(c.Spec.Tier) == m.Tier)
}

// Page returns up to q.Limit claims of the project (namespace, projectID) matching q, in
// q's order, strictly after q.After; total, the number of claims matching q's Match and
// Filter (ignoring After); and next, the position of the last returned item when more
// items follow it (nil on the last page). Returned claims are the cache's objects:
// read-only.
//
// Cost: O(log n + limit) for a Match the partitions cover; plus a scan of the chosen
// partition for the total when a residual filter or Filter applies; plus, once per
// (partition, sort), building that sort's tree.
func (x *Index) Page(namespace, projectID string, q Query) (items []*discov1.Claim, total int, next *Key, err error) {
	sortName := q.Sort
	if sortName == "" {
		sortName = x.spec.DefaultSort
	}
	slot, ok := x.slot[sortName]
	if !ok {
		return nil, 0, nil, fmt.Errorf("%w %q", ErrUnknownSort, sortName)
	}
	limit := q.Limit
	if limit == 0 {
		limit = pagination.DefaultLimit
	}
	if limit < 0 {
		return nil, 0, nil, errors.New("listindex: negative limit")
	}

	x.mu.RLock()
	pk, residual, empty := x.plan(namespace, projectID, q.Match)
	p := x.parts[pk]
	if empty || p == nil {
		x.mu.RUnlock()
		return []*discov1.Claim{}, 0, nil, nil
	}
	if p.trees[slot] == nil {
		// Build the tree once, under the write lock, then continue as a reader.
		x.mu.RUnlock()
		x.build(pk, slot)
		x.mu.RLock()
		pk, residual, empty = x.plan(namespace, projectID, q.Match)
		p = x.parts[pk]
		if empty || p == nil {
			x.mu.RUnlock()
			return []*discov1.Claim{}, 0, nil, nil
		}
		if p.trees[slot] == nil { // the partition was emptied and refilled meanwhile
			x.mu.RUnlock()
			return x.Page(namespace, projectID, q)
		}
	}
	defer x.mu.RUnlock()
	t := p.trees[slot]

	check := func(c *discov1.Claim) bool {
		return (residual.none() || residual.matches(c)) && (q.Filter == nil || q.Filter(c))
	}
	filtered := !residual.none() || q.Filter != nil

	items = make([]*discov1.Claim, 0, min(limit+1, t.Len()))
	var last *entry
	var lastKept *entry
	visit := func(e *entry) bool {
		if !filtered || check(e.c) {
			if len(items) == limit {
				last = e // one more exists
				return false
			}
			items = append(items, e.c)
			lastKept = e
		}
		return true
	}
	if q.After == nil {
		if q.Desc {
			t.Descend(visit)
		} else {
			t.Ascend(visit)
		}
	} else {
		pivot := &entry{id: q.After.Name, keys: make([]pagination.Key, len(x.sorts))}
		pivot.keys[slot] = q.After.Sort
		skip := func(e *entry) bool {
			if cmpAt(slot, e, pivot) == 0 {
				return true // exclusive
			}
			return visit(e)
		}
		if q.Desc {
			t.DescendLessOrEqual(pivot, skip)
		} else {
			t.AscendGreaterOrEqual(pivot, skip)
		}
	}
	if last != nil && lastKept != nil {
		next = &Key{Sort: lastKept.keys[slot], Name: lastKept.id}
	}

	if !filtered {
		total = t.Len()
	} else {
		t.Ascend(func(e *entry) bool {
			if check(e.c) {
				total++
			}
			return true
		})
	}
	return items, total, next, nil
}

// build creates the tree of sort slot for partition pk if it is still missing.
func (x *Index) build(pk partKey, slot int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.parts[pk]
	if p == nil || p.trees[slot] != nil {
		return
	}
	all := make([]*entry, 0, p.len())
	p.trees[0].Ascend(func(e *entry) bool { all = append(all, e); return true })
	slices.SortFunc(all, func(a, b *entry) int { return cmpAt(slot, a, b) })
	t := btree.NewG(degree, lessAt(slot))
	for _, e := range all {
		t.ReplaceOrInsert(e)
	}
	p.trees[slot] = t
}

// Paginate is a drop-in for pagination.Paginate over the project's claims matching m: same
// request validation, same errors (*pagination.Error for limit, cursor, sort and order),
// same order and same cursors (signed with codec, for the index's spec). req.Filter must be
// the canonical form of m (and the project), as listClaims already builds it with filterKey.
func (x *Index) Paginate(codec *pagination.Codec, namespace, projectID string, m Match, req pagination.Request) (pagination.Page[*discov1.Claim], error) {
	type page = pagination.Page[*discov1.Claim]
	limit := req.Limit
	if limit == 0 {
		limit = pagination.DefaultLimit
	}
	if limit < 1 || limit > pagination.MaxLimit {
		return page{}, &pagination.Error{Param: "limit", Message: "must be between 1 and 100"}
	}
	sortField, order := req.Sort, req.Order
	var after *Key
	if req.Cursor != "" {
		c, err := codec.Decode(req.Cursor)
		if err != nil {
			return page{}, &pagination.Error{Param: "cursor", Message: "not a cursor issued by this list"}
		}
		if c.List != x.spec.Name || (sortField != "" && sortField != c.Sort) || (order != "" && order != c.Order) || c.Filter != req.Filter {
			return page{}, &pagination.Error{Param: "cursor", Message: "the cursor belongs to a different sort, order or filter"}
		}
		sortField, order = c.Sort, c.Order
		after = &Key{Sort: c.Key, Name: c.ID}
	}
	if sortField == "" {
		sortField = x.spec.DefaultSort
	}
	if _, ok := x.slot[sortField]; !ok {
		names := append([]string(nil), x.sorts...)
		slices.Sort(names)
		return page{}, &pagination.Error{Param: "sort", Message: "cannot sort by " + sortField + "; sortable fields: " + strings.Join(names, ", ")}
	}
	if order == "" {
		order = x.spec.DefaultOrder
	}
	if order != pagination.Asc && order != pagination.Desc {
		return page{}, &pagination.Error{Param: "order", Message: "must be asc or desc"}
	}
	items, total, next, err := x.Page(namespace, projectID, Query{Sort: sortField, Desc: order == pagination.Desc, After: after, Limit: limit, Match: m})
	if err != nil {
		return page{}, err
	}
	out := page{Items: items, Total: total}
	if next != nil {
		out.HasMore = true
		out.NextCursor = codec.Encode(pagination.Cursor{List: x.spec.Name, Sort: sortField, Order: order, Filter: req.Filter, Key: next.Sort, ID: next.Name})
	}
	return out, nil
}
