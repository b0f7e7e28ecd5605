package dashboard

import (
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strings"

	"github.com/discolab/disco/dashboard/api"
)

func (d *Dashboard) datasets(c *call) error { return c.showDatasets(http.StatusOK, "") }

func (c *call) showDatasets(status int, uploadErr string) error {
	p, err := c.project()
	if err != nil {
		return err
	}
	var l api.List[api.Dataset]
	if err := c.get("/projects/"+p.ID+"/datasets", listQuery(c.r, "status", "format"), &l); err != nil {
		return err
	}
	return c.show(status, "datasets.html", &page{Title: "Datasets", Project: p, Section: "datasets", Data: map[string]any{
		"P": p, "List": l.Data, "Pager": pagerOf(c.r, l), "Status": c.r.URL.Query().Get("status"), "Error": uploadErr,
	}})
}

// upload streams the browser's file to POST .../datasets as the API's multipart form
// (a metadata part, then the file part) without holding it in memory; the API's limits
// apply and its refusals (413, 422, 400) are shown as messages.
func (d *Dashboard) upload(c *call) error {
	ids, err := c.ids("pid")
	if err != nil {
		return err
	}
	mr, err := c.r.MultipartReader()
	if err != nil {
		return c.uploadFailed(http.StatusBadRequest, "Choose a file to upload.")
	}
	name := ""
	var file *multipart.Part
	for file == nil {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c.uploadFailed(http.StatusBadRequest, "The upload was cut short; try again.")
		}
		switch part.FormName() {
		case "name":
			b, _ := io.ReadAll(io.LimitReader(part, 1024))
			name = strings.TrimSpace(string(b))
		case "file":
			if part.FileName() != "" {
				file = part
			}
		}
	}
	if file == nil {
		return c.uploadFailed(http.StatusBadRequest, "Choose a file to upload.")
	}
	if name == "" {
		name = file.FileName()
	}
	format := "csv"
	if ext := strings.ToLower(path.Ext(file.FileName())); ext == ".parquet" {
		format = "parquet"
	}
	meta, _ := json.Marshal(map[string]any{"name": name, "format": format})

	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField("metadata", string(meta))
		if err == nil {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="file"; filename="upload"`)
			h.Set("Content-Type", "application/octet-stream")
			var w io.Writer
			if w, err = mw.CreatePart(h); err == nil {
				if _, err = io.Copy(w, file); err == nil {
					err = mw.Close()
				}
			}
		}
		pw.CloseWithError(err)
	}()
	var ds api.Dataset
	err = c.do(api.Request{Method: http.MethodPost, Path: "/projects/" + ids[0] + "/datasets", Body: pr,
		ContentType: mw.FormDataContentType()}, &ds)
	pr.CloseWithError(errors.New("the API has answered")) // stops the copy if the API answered early
	if err != nil {
		if e, ok := api.AsError(err); ok && apiRefusal(err) {
			msg := e.Message
			switch e.Status {
			case http.StatusRequestEntityTooLarge:
				msg = "The file is too large: " + e.Message
			case http.StatusUnprocessableEntity:
				msg = "The file cannot be used: " + e.Message
			}
			return c.uploadFailed(e.Status, msg)
		}
		return err
	}
	target := "/projects/" + ids[0] + "/datasets/" + ds.ID
	if c.r.Header.Get("HX-Request") != "" {
		c.w.Header().Set("HX-Redirect", target)
		c.w.WriteHeader(http.StatusCreated)
		return nil
	}
	return c.seeOther(target)
}

func (c *call) uploadFailed(status int, msg string) error {
	if c.r.Header.Get("HX-Request") != "" {
		c.d.fragment(c.w, status, "uploaderror", msg)
		return nil
	}
	return c.showDatasets(status, msg)
}

type datasetView struct {
	P         *api.Project
	DS        api.Dataset
	Profile   *api.Profile
	Base      string
	Campaigns []api.Campaign // active campaigns a run on this dataset can go to
}

func (c *call) datasetView() (*datasetView, error) {
	ids, err := c.ids("pid", "did")
	if err != nil {
		return nil, err
	}
	v := &datasetView{Base: "/projects/" + ids[0] + "/datasets/" + ids[1]}
	if err := c.get(v.Base, nil, &v.DS); err != nil {
		return nil, err
	}
	if v.DS.ProfileReady {
		var prof api.Profile
		if err := c.get(v.Base+"/profile", nil, &prof); err != nil {
			return nil, err
		}
		v.Profile = &prof
	}
	return v, nil
}

// dataset shows a dataset and its profile; while it is being profiled, htmx polls the
// same page's fragment.
func (d *Dashboard) dataset(c *call) error {
	v, err := c.datasetView()
	if err != nil {
		return err
	}
	if v.P, err = c.project(); err != nil {
		return err
	}
	if v.DS.Status == "ready" {
		var camps api.List[api.Campaign]
		if err := c.get("/projects/"+v.P.ID+"/campaigns", queryOf("status", "active", "limit", "100"), &camps); err != nil {
			return err
		}
		v.Campaigns = camps.Data
	}
	if c.r.Header.Get("HX-Request") != "" {
		d.fragment(c.w, http.StatusOK, "datasetlive", v)
		return nil
	}
	return c.show(http.StatusOK, "dataset.html", &page{Title: v.DS.Name, Project: v.P, Section: "datasets", Data: v})
}

func (d *Dashboard) ledger(c *call) error {
	p, err := c.project()
	if err != nil {
		return err
	}
	q := listQuery(c.r, "claim_id")
	var l api.List[api.LedgerEntry]
	if err := c.get("/projects/"+p.ID+"/ledger", q, &l); err != nil {
		return err
	}
	var verify struct {
		Valid         bool   `json:"valid"`
		Size          int64  `json:"size"`
		RootHash      string `json:"root_hash"`
		Checkpoint    string `json:"checkpoint"`
		FirstBadIndex *int64 `json:"first_bad_index"`
		Reason        string `json:"reason"`
	}
	verified := c.r.URL.Query().Get("verify") != ""
	var verifyErr string
	if verified {
		if err := c.get("/projects/"+p.ID+"/ledger/verify", nil, &verify); err != nil {
			if e, ok := api.AsError(err); ok && e.Status != http.StatusUnauthorized && e.Status != http.StatusNotFound {
				verifyErr = e.Message
			} else {
				return err
			}
		}
	}
	return c.show(http.StatusOK, "ledger.html", &page{Title: "Ledger", Project: p, Section: "ledger", Data: map[string]any{
		"P": p, "List": l.Data, "Pager": pagerOf(c.r, l), "Verified": verified, "Verify": verify, "VerifyError": verifyErr,
		"ClaimID": c.r.URL.Query().Get("claim_id"),
	}})
}

// ledgerEntry shows an entry with its inclusion proof, which the page checks in the
// browser (static/app.js, RFC 9162 section 2.1.3.2) against the root of the signed
// checkpoint that comes with it.
func (d *Dashboard) ledgerEntry(c *call) error {
	p, err := c.project()
	if err != nil {
		return err
	}
	ids, err := c.ids("eid")
	if err != nil {
		return err
	}
	var e api.LedgerEntry
	if err := c.get("/projects/"+p.ID+"/ledger/"+ids[0], nil, &e); err != nil {
		return err
	}
	var proof api.InclusionProof
	if err := c.get("/projects/"+p.ID+"/ledger/"+ids[0]+"/proof", nil, &proof); err != nil {
		return err
	}
	raw, err := json.Marshal(proof)
	if err != nil {
		return err
	}
	return c.show(http.StatusOK, "ledger_entry.html", &page{Title: "Ledger entry", Project: p, Section: "ledger", Data: map[string]any{
		"P": p, "E": e, "Proof": proof, "ProofJSON": string(raw),
	}})
}
