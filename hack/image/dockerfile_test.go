package main

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1"
)

// dockerStage is what the final stage of a Dockerfile declares about its image: the config it
// ends with and the paths it copies in.
type dockerStage struct {
	base   string
	config v1.Config
	copied []string // absolute destination paths of COPY and ADD
}

// baseConfigs are the configs of the base images the Dockerfile may start from, as their
// publishers define them. gcr.io/distroless/static:nonroot: static/static.bzl in
// GoogleContainerTools/distroless (env PATH and SSL_CERT_FILE, user 65532, workdir
// /home/nonroot).
var baseConfigs = map[string]v1.Config{
	"scratch": {},
	"gcr.io/distroless/static:nonroot": {
		User:       "65532",
		WorkingDir: "/home/nonroot",
		Env: []string{
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		},
	},
}

// parseDockerfile reads the final stage of a Dockerfile (the Dockerfile reference's syntax:
// comments, backslash continuations, exec (JSON) and shell forms) on top of its base's config.
func parseDockerfile(src string) (*dockerStage, error) {
	var st *dockerStage
	for _, line := range logicalLines(src) {
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		instr := strings.ToUpper(word)
		if instr == "FROM" {
			fields := strings.Fields(rest)
			for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
				fields = fields[1:]
			}
			if len(fields) == 0 {
				return nil, fmt.Errorf("FROM without an image")
			}
			cfg, ok := baseConfigs[fields[0]]
			if !ok {
				// An earlier build stage: its config does not reach the final image unless the
				// final stage starts from it, which this Dockerfile's tests would then name.
				cfg = v1.Config{}
			}
			st = &dockerStage{base: fields[0], config: *cfg.DeepCopy()}
			continue
		}
		if st == nil {
			if instr == "ARG" {
				continue
			}
			return nil, fmt.Errorf("%s before FROM", instr)
		}
		c := &st.config
		switch instr {
		case "ENTRYPOINT":
			c.Entrypoint = execOrShell(rest)
			c.Cmd = nil // ENTRYPOINT resets a CMD inherited from the base
		case "CMD":
			c.Cmd = execOrShell(rest)
		case "USER":
			c.User = rest
		case "WORKDIR":
			if path.IsAbs(rest) {
				c.WorkingDir = rest
			} else {
				c.WorkingDir = path.Join("/", c.WorkingDir, rest)
			}
		case "ENV":
			for _, kv := range envPairs(rest) {
				c.Env = setEnv(c.Env, kv)
			}
		case "EXPOSE":
			for _, p := range strings.Fields(rest) {
				if !strings.Contains(p, "/") {
					p += "/tcp"
				}
				if c.ExposedPorts == nil {
					c.ExposedPorts = map[string]struct{}{}
				}
				c.ExposedPorts[p] = struct{}{}
			}
		case "COPY", "ADD":
			for strings.HasPrefix(rest, "--") { // --from=, --chown=, --chmod=
				_, rest, _ = strings.Cut(rest, " ")
				rest = strings.TrimSpace(rest)
			}
			args := strings.Fields(rest)
			if strings.HasPrefix(rest, "[") {
				if err := json.Unmarshal([]byte(rest), &args); err != nil {
					return nil, fmt.Errorf("%s %q: %w", instr, rest, err)
				}
			}
			if len(args) < 2 {
				return nil, fmt.Errorf("%s %q: want a source and a destination", instr, rest)
			}
			dst := args[len(args)-1]
			if !path.IsAbs(dst) {
				dst = path.Join("/", c.WorkingDir, dst)
			}
			st.copied = append(st.copied, dst)
		}
	}
	if st == nil {
		return nil, fmt.Errorf("no FROM")
	}
	return st, nil
}

func logicalLines(src string) []string {
	var out []string
	var cur strings.Builder
	for _, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			cur.WriteString(" ")
			continue
		}
		cur.WriteString(line)
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	return out
}

// execOrShell: the exec form is a JSON array; anything else is the shell form, run by
// /bin/sh -c.
func execOrShell(s string) []string {
	var args []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &args) == nil {
		return args
	}
	return []string{"/bin/sh", "-c", s}
}

// envPairs parses `ENV k=v k2="v 2"` and the legacy `ENV k v`.
func envPairs(s string) []string {
	if k, v, ok := strings.Cut(s, " "); ok && !strings.Contains(k, "=") {
		return []string{k + "=" + strings.TrimSpace(v)}
	}
	var out []string
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		out = append(out, k+"="+strings.Trim(v, `"`))
	}
	return out
}

func setEnv(env []string, kv string) []string {
	k, _, _ := strings.Cut(kv, "=")
	for i, e := range env {
		if strings.HasPrefix(e, k+"=") {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}
