package apiserver

import (
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/pagination"
)

// listPage is the contract's list response.
type listPage[T any] struct {
	Object     string `json:"object" enum:"list" doc:"Always \"list\"."`
	Data       []T    `json:"data"`
	HasMore    bool   `json:"has_more" doc:"Whether another page follows."`
	NextCursor string `json:"next_cursor,omitempty" doc:"Pass as cursor to get the next page; absent on the last page."`
	TotalCount *int   `json:"total_count,omitempty" doc:"Number of items matching the filters, over all pages (absent where not available)."`
}

type listOutput[T any] struct {
	Body listPage[T]
}

// PageParams are the query parameters every list takes; sort is declared per list
// because its allowed values differ.
type PageParams struct {
	Limit  int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page; default 20, maximum 100."`
	Cursor string `query:"cursor" maxLength:"4096" doc:"The next_cursor of the previous page."`
	Order  string `query:"order" enum:"asc,desc" doc:"Sort order; default desc (newest first) for created_at, asc otherwise."`
}

// paginate sorts and pages items, converting the page to wire form.
func paginate[T, W any](s *Server, items []T, spec pagination.Spec[T], p PageParams, sortField, filter string, conv func(T) W) (*listOutput[W], error) {
	page, err := pagination.Paginate(s.cursors, items, spec, pageRequest(spec, p, sortField, filter))
	if err != nil {
		return nil, paginationError(err)
	}
	return pageOutput(page, conv), nil
}

// pageRequest builds a pagination request: without an order and a cursor, the default sort
// runs in its default order and any other sort ascending.
func pageRequest[T any](spec pagination.Spec[T], p PageParams, sortField, filter string) pagination.Request {
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

// paginationError maps pagination's errors to the contract's 400s.
func paginationError(err error) error {
	var pe *pagination.Error
	if errors.As(err, &pe) {
		if pe.Param == "cursor" {
			return apierror.New(http.StatusBadRequest, apierror.CodeInvalidCursor, "%s", pe.Message).
				With("fields", []apierror.Field{{Field: "query.cursor", Message: pe.Message}})
		}
		return apierror.Invalid("query."+pe.Param, pe.Message)
	}
	return internalError(err)
}

// pageOutput converts a page into the contract's list body.
func pageOutput[T, W any](page pagination.Page[T], conv func(T) W) *listOutput[W] {
	out := &listOutput[W]{Body: listPage[W]{Object: "list", Data: make([]W, 0, len(page.Items)), HasMore: page.HasMore, NextCursor: page.NextCursor, TotalCount: &page.Total}}
	for _, it := range page.Items {
		out.Body.Data = append(out.Body.Data, conv(it))
	}
	return out
}

// filterKey canonicalises a list's filters so a cursor only continues its own list.
func filterKey(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			parts = append(parts, kv[i]+"="+kv[i+1])
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

// createdKey sorts by creation time. Kubernetes creation timestamps have one-second
// resolution, so ties are common; the id breaks them.
func createdKey(o client.Object) pagination.Key {
	return pagination.Time(o.GetCreationTimestamp().Time)
}

// utc returns t in UTC, the contract's zone.
func utc(t metav1.Time) time.Time { return t.UTC() }

func utcPtr(t *metav1.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
