// Package index registers the cache field indexes that the controllers and the facade share,
// so every list of a project's campaigns, a campaign's runs or a project's claims by tier is
// an index lookup instead of a scan.
package index

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// Field index names.
const (
	Project  = "spec.projectID"
	Campaign = "spec.campaignID"
	Run      = "spec.runID"
	Dataset  = "spec.datasetID"
	Tier     = "spec.tier"
	Type     = "spec.type"
	Tenant   = "spec.tenantID"
)

type spec struct {
	obj     client.Object
	field   string
	extract client.IndexerFunc
}

func one(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

var all = []spec{
	{&discov1.Project{}, Tenant, func(o client.Object) []string { return one(o.(*discov1.Project).TenantID()) }},
	{&discov1.Campaign{}, Project, func(o client.Object) []string { return one(o.(*discov1.Campaign).ProjectID()) }},
	{&discov1.Dataset{}, Project, func(o client.Object) []string { return one(o.(*discov1.Dataset).ProjectID()) }},
	{&discov1.Run{}, Project, func(o client.Object) []string { return one(o.(*discov1.Run).ProjectID()) }},
	{&discov1.Run{}, Campaign, func(o client.Object) []string { return one(o.(*discov1.Run).CampaignID()) }},
	{&discov1.Run{}, Dataset, func(o client.Object) []string { return one(o.(*discov1.Run).DatasetID()) }},
	{&discov1.Claim{}, Project, func(o client.Object) []string { return one(o.(*discov1.Claim).Spec.ProjectID) }},
	{&discov1.Claim{}, Campaign, func(o client.Object) []string { return one(o.(*discov1.Claim).Spec.CampaignID) }},
	{&discov1.Claim{}, Run, func(o client.Object) []string { return one(o.(*discov1.Claim).Spec.RunID) }},
	{&discov1.Claim{}, Tier, func(o client.Object) []string { return one(string(o.(*discov1.Claim).Spec.Tier)) }},
	{&discov1.Claim{}, Type, func(o client.Object) []string { return one(string(o.(*discov1.Claim).Spec.Type)) }},
}

// Register adds every disco field index to the indexer (a manager's GetFieldIndexer()).
// Call it once, before the manager starts.
func Register(ctx context.Context, indexer client.FieldIndexer) error {
	return register(ctx, indexer, all)
}

// RegisterForManager registers the indexes the controllers list by, without the Claim
// indexes: only the facade lists Claims by field, and on 100,000 Claims those five indexes
// hold each Claim's key five times (test/bench/managermem, issue 13).
func RegisterForManager(ctx context.Context, indexer client.FieldIndexer) error {
	var specs []spec
	for _, s := range all {
		if _, claim := s.obj.(*discov1.Claim); !claim {
			specs = append(specs, s)
		}
	}
	return register(ctx, indexer, specs)
}

func register(ctx context.Context, indexer client.FieldIndexer, specs []spec) error {
	for _, s := range specs {
		if err := indexer.IndexField(ctx, s.obj, s.field, s.extract); err != nil {
			return err
		}
	}
	return nil
}

// CacheOptions is the cache configuration every manager shares (disco manager, disco dev,
// disco apiserver, the API benchmark). Claims are cached without their managed fields: a
// claim is the most numerous object (100,000s per tenant), its managed fields are heap that
// every GC cycle scans and every deep copy copies, and nothing reads them (the facade's
// updated_at looks at managed fields of projects only). An update without managed fields
// keeps the server's, so writes through the cache's objects are unaffected.
func CacheOptions() cache.Options {
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&discov1.Claim{}: {Transform: cache.TransformStripManagedFields()},
	}}
}

// ManagerCacheOptions is the cache of `disco manager` alone (not of disco dev, which shares
// one cache with the facade): managed fields are stripped from every kind, not only Claims,
// since no controller reads them and every controller write is a patch of the fields it
// changed (test/bench/managermem measures the saving; issue 13).
func ManagerCacheOptions() cache.Options {
	o := CacheOptions()
	o.DefaultTransform = cache.TransformStripManagedFields()
	return o
}
