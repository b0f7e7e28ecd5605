package resource

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/internal/store"
)

// ListPage is the contract's list response.
type ListPage[T any] struct {
	Object     string `json:"object" enum:"list" doc:"Always \"list\"."`
	Data       []T    `json:"data"`
	HasMore    bool   `json:"has_more" doc:"Whether another page follows."`
	NextCursor string `json:"next_cursor,omitempty" doc:"Pass as cursor to get the next page; absent on the last page."`
	TotalCount *int   `json:"total_count,omitempty" doc:"Number of items matching the filters, over all pages (absent where not available)."`
}

// ListOutput is a list operation's response.
type ListOutput[T any] struct {
	Body ListPage[T]
}

// PageParams are the query parameters every list takes; sort is declared per list
// because its allowed values differ.
type PageParams struct {
	Limit  int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page; default 20, maximum 100."`
	Cursor string `query:"cursor" maxLength:"4096" doc:"The next_cursor of the previous page."`
	Order  string `query:"order" enum:"asc,desc" doc:"Sort order; default desc (newest first) for created_at, asc otherwise."`
}

// Paginate sorts and pages items, converting the page to wire form.
func Paginate[T, W any](k *Kit, items []T, spec pagination.Spec[T], p PageParams, sortField, filter string, conv func(T) W) (*ListOutput[W], error) {
	page, err := pagination.Paginate(k.Cursors, items, spec, PageRequest(spec, p, sortField, filter))
	if err != nil {
		return nil, PaginationError(err)
	}
	return PageOutput(page, conv), nil
}

// StoreAll reads all of a tenant's rows from one of the store's lists (ListAPIKeys,
// ListWebhooks), a page of store.MaxPageSize at a time after the last id read, and returns
// those keep accepts. The facade sorts and pages them itself (Paginate).
func StoreAll[T any](ctx context.Context, tenantID string, list func(ctx context.Context, tenantID string, limit int, after string) ([]T, error),
	id func(T) string, keep func(T) bool) ([]T, error) {
	var out []T
	for after := ""; ; {
		page, err := list(ctx, tenantID, store.MaxPageSize, after)
		if err != nil {
			return nil, err
		}
		for _, v := range page {
			if keep(v) {
				out = append(out, v)
			}
		}
		if len(page) < store.MaxPageSize {
			return out, nil
		}
		after = id(page[len(page)-1])
	}
}

// PageRequest builds a pagination request: without an order and a cursor, the default sort
// runs in its default order and any other sort ascending.
func PageRequest[T any](spec pagination.Spec[T], p PageParams, sortField, filter string) pagination.Request {
	req := pagination.Request{Limit: p.Limit, Cursor: p.Cursor, Sort: sortField, Order: p.Order, Filter: filter}
	if req.Order == "" && req.Cursor == "" {
		if sortField == "" || sortField == spec.DefaultSort {
			req.Order = spec.DefaultOrder
		} else {
			req.Order = pagination.Asc
		}
	}
	return req
}

// PaginationError maps pagination's errors to the contract's 400s.
func PaginationError(err error) error {
	var pe *pagination.Error
	if errors.As(err, &pe) {
		if pe.Param == "cursor" {
			return apierror.New(http.StatusBadRequest, apierror.CodeInvalidCursor, "%s", pe.Message).
				With("fields", []apierror.Field{{Field: "query.cursor", Message: pe.Message}})
		}
		return apierror.Invalid("query."+pe.Param, pe.Message)
	}
	return apierror.Internal(err)
}

// PageOutput converts a page into the contract's list body.
func PageOutput[T, W any](page pagination.Page[T], conv func(T) W) *ListOutput[W] {
	out := &ListOutput[W]{Body: ListPage[W]{Object: "list", Data: make([]W, 0, len(page.Items)), HasMore: page.HasMore, NextCursor: page.NextCursor, TotalCount: &page.Total}}
	for _, it := range page.Items {
		out.Body.Data = append(out.Body.Data, conv(it))
	}
	return out
}

// FilterKey canonicalises a list's filters so a cursor only continues its own list.
func FilterKey(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			parts = append(parts, kv[i]+"="+kv[i+1])
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "&")
}

// CreatedKey sorts by creation time. Kubernetes creation timestamps have one-second
// resolution, so ties are common; the id breaks them.
func CreatedKey(o client.Object) pagination.Key {
	return pagination.Time(o.GetCreationTimestamp().Time)
}

// UTC returns t in UTC, the contract's zone.
func UTC(t metav1.Time) time.Time { return t.UTC() }

// UTCPtr returns t in UTC, nil for an unset time.
func UTCPtr(t *metav1.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// NonNil returns v, or an empty list for nil: lists are [] on the wire, never null.
func NonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
