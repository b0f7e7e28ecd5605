package main

import (
	"context"
	"slices"
	"unique"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/index"
)

// variant is one cache configuration: the cache options and the field indexes registered.
type variant struct {
	name, about string
	options     func() cache.Options
	// indexes filters the field indexes of internal/index (nil keeps them all).
	indexes func(obj client.Object, field string) bool
	// metadataClaims caches Claims as metadata only (PartialObjectMetadata).
	metadataClaims bool
	// env is added to the child's environment (GOMEMLIMIT, GOGC).
	env []string
}

var variants = []variant{
	{name: "manager", about: "production since be7c64f: index.ManagerCacheOptions() (managed fields stripped from every kind) and index.RegisterForManager (no Claim field index)",
		options: index.ManagerCacheOptions, indexes: notClaim},
	{name: "manager-limited", about: "production since be7c64f, with config/manager's GOMEMLIMIT=900MiB",
		options: index.ManagerCacheOptions, indexes: notClaim, env: []string{"GOMEMLIMIT=900MiB"}},
	{name: "manager-before", about: "production before be7c64f: index.CacheOptions() (Claims without managed fields) and every internal/index field index",
		options: index.CacheOptions},
	{name: "unstripped", about: "no transform at all (the cache before Claims lost their managed fields), every field index",
		options: func() cache.Options { return cache.Options{} }},
	{name: "strip-all", about: "managed fields stripped from every kind (DefaultTransform), every field index",
		options: stripAll},
	{name: "no-claim-indexes", about: "production cache options without the Claim field indexes (the manager lists Claims by label and namespace only)",
		options: index.CacheOptions, indexes: notClaim},
	{name: "slim-claims", about: "Claims keep only what the manager reads (metadata without managed fields or annotations; spec ids, type, tier, score; status), every field index",
		options: slimClaims},
	{name: "intern-claims", about: "Claims without managed fields, their repeated strings interned (unique.Make), every field index",
		options: internClaims},
	{name: "metadata-claims", about: "Claims cached as metadata only (a bound: the manager's readers would then read spec and status uncached), every field index but the Claims'",
		options: index.CacheOptions, indexes: notClaim, metadataClaims: true},
	{name: "manager-gomemlimit", about: "production cache, with GOMEMLIMIT=460MiB (90% of the manager's 512 MiB limit)",
		options: index.CacheOptions, env: []string{"GOMEMLIMIT=460MiB"}},
	{name: "combined", about: "strip-all + slim-claims + no-claim-indexes",
		options: func() cache.Options {
			o := stripAll()
			o.ByObject = slimClaims().ByObject
			return o
		}, indexes: notClaim},
}

func variantNames() []string {
	var out []string
	for _, v := range variants {
		out = append(out, v.name)
	}
	return out
}

func variantByName(name string) (variant, bool) {
	i := slices.IndexFunc(variants, func(v variant) bool { return v.name == name })
	if i < 0 {
		return variant{}, false
	}
	return variants[i], true
}

func describeVariants(names []string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		v, _ := variantByName(n)
		out[n] = v.about
	}
	return out
}

func notClaim(obj client.Object, _ string) bool {
	_, claim := obj.(*discov1.Claim)
	return !claim
}

// filteredIndexer registers only the field indexes keep accepts.
type filteredIndexer struct {
	client.FieldIndexer
	keep func(client.Object, string) bool
}

func (f filteredIndexer) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	if f.keep != nil && !f.keep(obj, field) {
		return nil
	}
	return f.FieldIndexer.IndexField(ctx, obj, field, extract)
}

func stripAll() cache.Options {
	o := index.CacheOptions()
	o.DefaultTransform = cache.TransformStripManagedFields()
	return o
}

func withClaimTransform(t toolscache.TransformFunc) cache.Options {
	o := index.CacheOptions()
	o.ByObject = map[client.Object]cache.ByObject{&discov1.Claim{}: {Transform: t}}
	return o
}

// slimClaims keeps what the manager's readers of cached Claims use: the claim reconciler
// (metadata, spec ids, type, tier, score, status), the state collector (tier, type), the run
// reconciler's announcement (labels, type, tier, score) and Materialize (existence). Every
// write of theirs is a merge patch of the fields they changed, so the dropped fields are
// never sent back.
func slimClaims() cache.Options {
	return withClaimTransform(func(in any) (any, error) {
		c, ok := in.(*discov1.Claim)
		if !ok {
			return in, nil
		}
		out := &discov1.Claim{TypeMeta: c.TypeMeta, Status: c.Status}
		m := &c.ObjectMeta
		out.Name, out.Namespace, out.UID, out.ResourceVersion, out.Generation = m.Name, m.Namespace, m.UID, m.ResourceVersion, m.Generation
		out.CreationTimestamp, out.DeletionTimestamp, out.DeletionGracePeriodSeconds = m.CreationTimestamp, m.DeletionTimestamp, m.DeletionGracePeriodSeconds
		out.Labels, out.OwnerReferences, out.Finalizers = m.Labels, m.OwnerReferences, m.Finalizers
		s := &c.Spec
		out.Spec = discov1.ClaimSpec{ProjectID: s.ProjectID, CampaignID: s.CampaignID, RunID: s.RunID, Type: s.Type, Tier: s.Tier, Score: s.Score}
		return out, nil
	})
}

// internClaims replaces the strings many Claims share (namespace, labels, owner, ids,
// conditions) by one canonical copy each.
func internClaims() cache.Options {
	strip := cache.TransformStripManagedFields()
	return withClaimTransform(func(in any) (any, error) {
		in, _ = strip(in)
		c, ok := in.(*discov1.Claim)
		if !ok {
			return in, nil
		}
		c.Namespace = intern(c.Namespace)
		labels := make(map[string]string, len(c.Labels))
		for k, v := range c.Labels {
			labels[intern(k)] = intern(v)
		}
		c.Labels = labels
		for i := range c.Finalizers {
			c.Finalizers[i] = intern(c.Finalizers[i])
		}
		for i := range c.OwnerReferences {
			r := &c.OwnerReferences[i]
			r.APIVersion, r.Kind, r.Name = intern(r.APIVersion), intern(r.Kind), intern(r.Name)
		}
		s := &c.Spec
		s.ProjectID, s.CampaignID, s.RunID = intern(s.ProjectID), intern(s.CampaignID), intern(s.RunID)
		s.Type, s.Tier = discov1.ClaimType(intern(string(s.Type))), discov1.Tier(intern(string(s.Tier)))
		c.Status.Tier = discov1.Tier(intern(string(c.Status.Tier)))
		for i := range c.Status.Conditions {
			k := &c.Status.Conditions[i]
			k.Type, k.Reason, k.Message = intern(k.Type), intern(k.Reason), intern(k.Message)
		}
		return c, nil
	})
}

func intern(s string) string { return unique.Make(s).Value() }
