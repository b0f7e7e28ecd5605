package ledgers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
)

// Deps is what the ledgers room needs.
type Deps struct {
	Kit *resource.Kit
	// Ledger is the Evidence Ledger; nil answers 501.
	Ledger *ledger.Ledger
}

type handlers struct{ Deps }

// Register adds the ledger operations of a project under
// /projects/{project_id}/ledger, and the ledger's verifier key.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/projects/{project_id}/ledger")
	base := ""
	transport.Register(g, huma.Operation{
		OperationID: "listLedgerEntries", Method: http.MethodGet, Path: base,
		Summary: "List a project's ledger entries", Tags: []string{"Ledger"},
		Errors: []int{http.StatusNotFound, http.StatusNotImplemented},
	}, auth.LedgerRead, s.listLedger)
	transport.Register(g, huma.Operation{
		OperationID: "verifyLedger", Method: http.MethodGet, Path: base + "/verify",
		Summary: "Verify a project's ledger", Tags: []string{"Ledger"},
		Description: "Recomputes every hash, chain link and the Merkle tree. A valid ledger comes with a freshly " +
			"signed checkpoint (a C2SP signed note, as from `.../ledger/checkpoint`); an invalid one answers 500 " +
			"ledger_integrity_error naming the first bad index. This shows only that the ledger agrees with itself: " +
			"one rewritten or truncated consistently behind the service still verifies. Clients keep checkpoints " +
			"and check later ones against them with `.../ledger/consistency`.",
		Errors: []int{http.StatusNotFound, http.StatusInternalServerError, http.StatusNotImplemented},
	}, auth.LedgerRead, s.verifyLedger)
	transport.Register(g, huma.Operation{
		OperationID: "getLedgerConsistency", Method: http.MethodGet, Path: base + "/consistency",
		Summary: "Prove the ledger extends an older tree head", Tags: []string{"Ledger"},
		Description: "The Merkle consistency proof (RFC 6962 section 2.1.2) that the tree of `new_size` entries " +
			"(default: the current size) extends the tree of `old_size` entries. A client that kept a checkpoint " +
			"checks the proof against the root hash of its own checkpoint, never against `old_root_hash`: only " +
			"that catches a ledger rewritten consistently behind the service (issue 17).",
		Errors: []int{http.StatusNotFound, http.StatusNotImplemented},
	}, auth.LedgerRead, s.ledgerConsistency)
	transport.Register(g, huma.Operation{
		OperationID: "getLedgerCheckpoint", Method: http.MethodGet, Path: base + "/checkpoint",
		Summary: "Get the ledger's signed checkpoint", Tags: []string{"Ledger"},
		Description: "The current tree head as a C2SP tlog-checkpoint: a signed note whose text is the origin " +
			"(`disco-ledger/<project_id>`), the number of entries and the base64 RFC 6962 root hash, followed by a " +
			"blank line and the signature lines. Check it with the key from `GET /ledger/verifier-key` " +
			"(for example with golang.org/x/mod/sumdb/note or `disco ledger verify`) and keep it: later " +
			"consistency proofs show whether the ledger still extends it.",
		Responses: map[string]*huma.Response{"200": {
			Description: "The signed note.",
			Content:     map[string]*huma.MediaType{"text/plain": {Schema: &huma.Schema{Type: "string"}}},
		}},
		Errors: []int{http.StatusNotFound, http.StatusNotImplemented},
	}, auth.LedgerRead, s.getLedgerCheckpoint)
	transport.Register(g, huma.Operation{
		OperationID: "getLedgerEntry", Method: http.MethodGet, Path: base + "/{entry_id}",
		Summary: "Get a ledger entry", Tags: []string{"Ledger"},
		Errors: []int{http.StatusNotFound, http.StatusNotImplemented},
	}, auth.LedgerRead, s.getLedgerEntry)
	transport.Register(g, huma.Operation{
		OperationID: "getLedgerProof", Method: http.MethodGet, Path: base + "/{entry_id}/proof",
		Summary: "Get an entry's inclusion proof", Tags: []string{"Ledger"},
		Errors: []int{http.StatusNotFound, http.StatusNotImplemented},
	}, auth.LedgerRead, s.getLedgerProof)
	transport.Register(api, huma.Operation{
		OperationID: "getLedgerVerifierKey", Method: http.MethodGet, Path: "/ledger/verifier-key",
		Summary: "Get the public key that signs ledger checkpoints", Tags: []string{"Ledger"},
		Description: "The note verifier key (`<name>+<key hash>+<base64 Ed25519 public key>`, C2SP signed-note) " +
			"that checks every project's checkpoints. Public like any public key: it needs no credential. " +
			"Fetching it from the service you audit trusts that service once; pin it (for example " +
			"`disco ledger verify --key`) from a copy obtained out of band.",
		Errors: []int{http.StatusNotImplemented},
	}, "", s.getLedgerVerifierKey)
}

// ledgerError maps the ledger's errors: integrity failures are the contract's
// ledger_integrity_error.
func ledgerError(err error, id string) error {
	var ie *ledger.IntegrityError
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return apierror.NotFound("ledger entry", id)
	case errors.As(err, &ie):
		return apierror.New(http.StatusInternalServerError, apierror.CodeLedgerIntegrity,
			"the ledger failed verification at entry %d: %s", ie.Index, ie.Reason).
			With("tree_index", ie.Index).With("reason", ie.Reason)
	case errors.Is(err, ledger.ErrIntegrity):
		return apierror.New(http.StatusInternalServerError, apierror.CodeLedgerIntegrity, "the ledger failed verification")
	}
	return apierror.Internal(err)
}

// projectLedger is every ledger operation's precondition: the project is reachable (else
// 404) and this facade has a ledger (else 501).
func (s *handlers) projectLedger(ctx context.Context, projectID string) error {
	if _, err := s.Kit.Project(ctx, projectID); err != nil {
		return err
	}
	if s.Ledger == nil {
		return apierror.NotImplemented("the Evidence Ledger")
	}
	return nil
}

type listLedgerInput struct {
	resource.ProjectPath
	resource.PageParams
	Sort    string `query:"sort" enum:"timestamp,tree_index" doc:"Both give ledger order; default newest first."`
	ClaimID string `query:"claim_id" maxLength:"64" doc:"Only entries about this claim."`
}

func (s *handlers) listLedger(ctx context.Context, in *listLedgerInput) (*resource.ListOutput[LedgerEntry], error) {
	_, t := auth.Who(ctx)
	if err := s.projectLedger(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	// The ledger pages by tree index in SQL; the cursor carries the last index, signed
	// like every other cursor.
	sortField := in.Sort
	if sortField == "" {
		sortField = "timestamp"
	}
	order := in.Order
	filter := resource.FilterKey("list", "ledger", "project", in.ProjectID, "claim_id", in.ClaimID)
	limit := in.Limit
	if limit <= 0 {
		limit = pagination.DefaultLimit
	}
	q := ledger.ListQuery{ClaimID: in.ClaimID, Limit: limit}
	if in.Cursor != "" {
		c, err := s.Kit.Cursors.Decode(in.Cursor)
		if err != nil || c.Filter != filter || (in.Sort != "" && c.Sort != in.Sort) || (order != "" && c.Order != order) || !c.Key.Num {
			return nil, apierror.New(http.StatusBadRequest, apierror.CodeInvalidCursor, "the cursor is not valid for this list").
				With("fields", []apierror.Field{{Field: "query.cursor", Message: "not a cursor issued by this list"}})
		}
		after := int64(c.Key.N)
		q.After, sortField, order = &after, c.Sort, c.Order
	}
	if order == "" {
		order = pagination.Desc
	}
	q.Desc = order == pagination.Desc
	entries, err := s.Ledger.List(ctx, t.ID, in.ProjectID, q)
	if err != nil {
		return nil, ledgerError(err, "")
	}
	total, err := s.Ledger.Count(ctx, t.ID, in.ProjectID, in.ClaimID)
	if err != nil {
		return nil, ledgerError(err, "")
	}
	out := &resource.ListOutput[LedgerEntry]{Body: resource.ListPage[LedgerEntry]{Object: "list", Data: []LedgerEntry{}, TotalCount: &total}}
	for _, e := range entries {
		out.Body.Data = append(out.Body.Data, entryOf(e))
	}
	if len(entries) == limit {
		// A full page: look one entry further to know whether another page follows.
		last := entries[len(entries)-1]
		peek := q
		peek.After, peek.Limit = &last.TreeIndex, 1
		more, err := s.Ledger.List(ctx, t.ID, in.ProjectID, peek)
		if err != nil {
			return nil, ledgerError(err, "")
		}
		if len(more) > 0 {
			out.Body.HasMore = true
			out.Body.NextCursor = s.Kit.Cursors.Encode(pagination.Cursor{Sort: sortField, Order: order, Filter: filter,
				Key: pagination.Number(float64(last.TreeIndex)), ID: last.ID})
		}
	}
	return out, nil
}

type LedgerEntryPath struct {
	resource.ProjectPath
	EntryID string `path:"entry_id" maxLength:"64" doc:"Ledger entry id (led_ prefix)."`
}

// entryTenant checks what reading one entry of a project's ledger needs: the ledger is
// the caller's to read (projectLedger) and the entry id is a ledger id (404 otherwise). It
// returns the caller's tenant.
func (s *handlers) entryTenant(ctx context.Context, in *LedgerEntryPath) (string, error) {
	_, t := auth.Who(ctx)
	if err := s.projectLedger(ctx, in.ProjectID); err != nil {
		return "", err
	}
	if !ids.Valid(ids.Ledger, in.EntryID) {
		return "", apierror.NotFound("ledger entry", in.EntryID)
	}
	return t.ID, nil
}

func (s *handlers) getLedgerEntry(ctx context.Context, in *LedgerEntryPath) (*struct{ Body LedgerEntry }, error) {
	tenantID, err := s.entryTenant(ctx, in)
	if err != nil {
		return nil, err
	}
	e, err := s.Ledger.Get(ctx, tenantID, in.ProjectID, in.EntryID)
	if err != nil {
		return nil, ledgerError(err, in.EntryID)
	}
	return &struct{ Body LedgerEntry }{Body: entryOf(e)}, nil
}

func (s *handlers) verifyLedger(ctx context.Context, in *resource.ProjectPath) (*struct{ Body LedgerVerification }, error) {
	_, t := auth.Who(ctx)
	if err := s.projectLedger(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	v, err := s.Ledger.Verify(ctx, t.ID, in.ProjectID)
	if err != nil {
		return nil, ledgerError(err, "")
	}
	if !v.Valid {
		// The contract: a ledger that fails validation is a 500 ledger_integrity_error,
		// naming where the chain breaks.
		e := apierror.New(http.StatusInternalServerError, apierror.CodeLedgerIntegrity,
			"the ledger failed verification: %s", v.Reason).With("reason", v.Reason).With("size", v.Size)
		if v.FirstBadIndex != nil {
			e = e.With("tree_index", *v.FirstBadIndex)
		}
		return nil, e
	}
	return &struct{ Body LedgerVerification }{Body: LedgerVerification{
		ProjectID: in.ProjectID, Valid: v.Valid, Size: v.Size, RootHash: v.RootHash, Checkpoint: v.Checkpoint,
		FirstBadIndex: v.FirstBadIndex, Reason: v.Reason, VerifiedAt: s.Kit.Now().UTC(),
	}}, nil
}

func (s *handlers) getLedgerProof(ctx context.Context, in *LedgerEntryPath) (*struct{ Body ledger.InclusionProof }, error) {
	tenantID, err := s.entryTenant(ctx, in)
	if err != nil {
		return nil, err
	}
	p, err := s.Ledger.Proof(ctx, tenantID, in.ProjectID, in.EntryID)
	if err != nil {
		return nil, ledgerError(err, in.EntryID)
	}
	if p.Hashes == nil {
		p.Hashes = []string{}
	}
	return &struct{ Body ledger.InclusionProof }{Body: p}, nil
}

func (s *handlers) ledgerConsistency(ctx context.Context, in *struct {
	resource.ProjectPath
	OldSize int64 `query:"old_size" required:"true" minimum:"1" doc:"Size of the tree head the client trusts."`
	NewSize int64 `query:"new_size" minimum:"1" doc:"Size of the later tree head; default the current size."`
}) (*struct{ Body ledger.ConsistencyProof }, error) {
	_, t := auth.Who(ctx)
	if err := s.projectLedger(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	n, err := s.Ledger.Count(ctx, t.ID, in.ProjectID, "")
	if err != nil {
		return nil, ledgerError(err, "")
	}
	switch {
	case in.NewSize > int64(n):
		return nil, apierror.Invalid("query.new_size", fmt.Sprintf("larger than the ledger (%d entries)", n))
	case in.OldSize > int64(n):
		return nil, apierror.Invalid("query.old_size", fmt.Sprintf("larger than the ledger (%d entries)", n))
	case in.NewSize != 0 && in.OldSize > in.NewSize:
		return nil, apierror.Invalid("query.old_size", "larger than new_size")
	}
	p, err := s.Ledger.ConsistencyProof(ctx, t.ID, in.ProjectID, in.OldSize, in.NewSize)
	if err != nil {
		return nil, ledgerError(err, "")
	}
	if p.Hashes == nil {
		p.Hashes = []string{}
	}
	return &struct{ Body ledger.ConsistencyProof }{Body: p}, nil
}

// getLedgerCheckpoint answers the signed note itself, as transparency-log clients and
// witnesses expect it (C2SP tlog-checkpoint), not wrapped in JSON.
func (s *handlers) getLedgerCheckpoint(ctx context.Context, in *resource.ProjectPath) (*ledgerNote, error) {
	_, t := auth.Who(ctx)
	if err := s.projectLedger(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	_, signed, err := s.Ledger.Checkpoint(ctx, t.ID, in.ProjectID)
	if err != nil {
		return nil, ledgerError(err, "")
	}
	return &ledgerNote{ContentType: "text/plain; charset=utf-8", CacheControl: "no-store", Body: []byte(signed)}, nil
}

func (s *handlers) getLedgerVerifierKey(ctx context.Context, _ *struct{}) (*struct{ Body LedgerVerifierKey }, error) {
	if s.Ledger == nil || s.Ledger.VerifierKey() == "" {
		return nil, apierror.NotImplemented("the Evidence Ledger's verifier key")
	}
	vkey := s.Ledger.VerifierKey()
	name, _, _ := strings.Cut(vkey, "+")
	return &struct{ Body LedgerVerifierKey }{Body: LedgerVerifierKey{
		VerifierKey: vkey, KeyName: name, Origin: ledger.Origin("{project_id}"),
	}}, nil
}
