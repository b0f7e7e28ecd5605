// Package e2e drives a real `disco dev` process: the embedded control plane, the controllers
// and the REST facade, over HTTP and through the kubeconfig it writes.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/live"
)

// devProcess is one running `disco dev` (live.Dev), with creds its credentials.json.
type devProcess struct {
	*live.Dev
	creds live.Credentials
}

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "disco-e2e-")
	if err != nil {
		panic(err)
	}
	if binary, err = live.BuildDisco(dir); err != nil {
		fmt.Fprintln(os.Stderr, "build disco:", err)
		os.Exit(1)
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		abs, _ := filepath.Abs(filepath.Join("..", "..", "bin", "k8s"))
		os.Setenv("KUBEBUILDER_ASSETS", abs)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	freeAddr   = live.FreeAddr
	kubeClient = live.KubeconfigClient
)

func startDev(t *testing.T, dataDir, addr string) *devProcess {
	t.Helper()
	d := live.StartDev(t, binary, dataDir, addr)
	return &devProcess{Dev: d, creds: d.Creds}
}

func TestDevStack(t *testing.T) {
	dataDir := t.TempDir()
	addr := freeAddr(t)
	p := startDev(t, dataDir, addr)
	ctx := context.Background()

	if !strings.HasPrefix(p.creds.APIKey, "disco_key_") || p.creds.BaseURL != "http://"+addr+"/v1" || !ids.Valid(ids.Tenant, p.creds.TenantID) {
		t.Fatalf("credentials.json = %+v", p.creds)
	}
	if !strings.Contains(p.Output.String(), p.creds.APIKey) {
		t.Errorf("the API key was not printed")
	}

	t.Run("health and OpenAPI", func(t *testing.T) {
		for _, path := range []string{"/healthz", "/readyz", "/v1/openapi.json"} {
			resp, err := http.Get("http://" + addr + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s = %d", path, resp.StatusCode)
			}
		}
	})

	t.Run("contract envelope without credential", func(t *testing.T) {
		resp, err := http.Get(p.creds.BaseURL + "/projects")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Error struct {
				Code      string `json:"code"`
				Status    int    `json:"status"`
				RequestID string `json:"request_id"`
			} `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Errorf("GET /v1/projects without credential: body: %v", err)
		}
		if resp.StatusCode != http.StatusUnauthorized || body.Error.Status != 401 || !strings.HasPrefix(body.Error.RequestID, "req_") {
			t.Errorf("GET /v1/projects without credential = %d %+v", resp.StatusCode, body)
		}
	})

	t.Run("the API key works", func(t *testing.T) {
		req, _ := http.NewRequest("GET", p.creds.BaseURL+"/projects", nil)
		req.Header.Set("Authorization", "Bearer "+p.creds.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /v1/projects with the printed key = %d", resp.StatusCode)
		}
	})

	kc := kubeClient(t, p.creds.Kubeconfig)
	tenant := &discov1.Tenant{}
	if err := kc.Get(ctx, client.ObjectKey{Name: ids.ToName(p.creds.TenantID)}, tenant); err != nil {
		t.Fatalf("the default tenant is not visible through the kubeconfig: %v", err)
	}
	ns := tenant.Status.Namespace

	t.Run("invalid objects are refused with the CEL message", func(t *testing.T) {
		c := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Campaign)), Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: ids.New(ids.Project), DisplayName: "c", Budget: discov1.Budget{ComputeUnits: 1, MaxRuns: 1},
				Governance: discov1.CampaignGovernance{PromotionCeiling: discov1.TierExplore, AutoPromoteTo: discov1.TierPublish}}}
		err := kc.Create(ctx, c)
		if err == nil || !strings.Contains(err.Error(), "autoPromoteTo must not be above promotionCeiling") {
			t.Errorf("create invalid campaign: %v", err)
		}
	})

	projectID := ids.New(ids.Project)
	project := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(projectID), Namespace: ns},
		Spec: discov1.ProjectSpec{DisplayName: "kept across restarts", TenantID: p.creds.TenantID}}
	if err := kc.Create(ctx, project); err != nil {
		t.Fatal(err)
	}

	t.Run("a second instance on the same data dir refuses to start", func(t *testing.T) {
		out, err := exec.Command(binary, "dev", "--data-dir", dataDir, "--listen", freeAddr(t)).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "is in use") {
			t.Errorf("second instance: err=%v output=%s", err, out)
		}
	})

	if err := p.Stop(t); err != nil {
		t.Fatalf("disco dev did not exit cleanly on SIGINT: %v\n%s", err, p.Output)
	}

	t.Run("a restart keeps every object and the tenant", func(t *testing.T) {
		p2 := startDev(t, dataDir, addr)
		if p2.creds.TenantID != p.creds.TenantID {
			t.Errorf("tenant changed across restart: %s -> %s", p.creds.TenantID, p2.creds.TenantID)
		}
		kc := kubeClient(t, p2.creds.Kubeconfig)
		got := &discov1.Project{}
		if err := kc.Get(ctx, client.ObjectKeyFromObject(project), got); err != nil || got.Spec.DisplayName != "kept across restarts" {
			t.Errorf("project after restart: %v %+v", err, got.Spec)
		}
		// The key printed by the first start still works.
		req, _ := http.NewRequest("GET", p2.creds.BaseURL+"/projects/"+projectID, nil)
		req.Header.Set("Authorization", "Bearer "+p.creds.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET project with the first start's key after restart = %d", resp.StatusCode)
		}
	})
}
