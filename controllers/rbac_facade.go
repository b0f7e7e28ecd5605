package controllers

// The REST facade (disco apiserver) runs with the same service account and writes the
// resources users create through the API; these markers give it those verbs.
//
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=tenants,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=campaigns;runs;datasets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
