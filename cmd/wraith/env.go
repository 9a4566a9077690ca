package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
	"github.com/wraithdev/wraith/twin/session"
)

// envOptions is what `wraith env` runs with.
type envOptions struct {
	Format string
	File   string
	// Session goes into the proxy variables' credential, when the
	// project runs a proxy ([proxy]).
	Session string
	f       *factory
}

func newEnvCmd(f *factory, runF func(context.Context, *envOptions) error) *cobra.Command {
	opts := &envOptions{f: f}
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the connection settings of the project wraith up runs here",
		Long: `Print where each twin of the running project listens, for a harness or a shell.

  json     {"project","supervisor_pid","twins":{NAME:{url,host,port,pid,
           wraith_session_header,digest,control}}}
  shell    export WRAITH_<NAME>_URL=... lines, for eval "$(wraith env --format shell)"
  dotenv   WRAITH_<NAME>_URL=... lines, for a .env file
  github   lines to append to $GITHUB_ENV in GitHub Actions

Line formats give, per twin, _URL, _HOST, _PORT, _SESSION_HEADER, _DIGEST and,
when the twin needs a control token, _CONTROL_TOKEN_ENV: the name of the
variable holding the token (never the token). When the manifest has a
[proxy] table, they also give HTTPS_PROXY, HTTP_PROXY and NO_PROXY, in
upper and lower case (the proxy's URL, with --session S as its credential) and the CA variables
SSL_CERT_FILE, REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE and
GIT_SSL_CAINFO; json gives "proxy":{url,ca_file,hosts} (docs/sandbox.md). NAME is the twin's name
upper-cased, each character other than a letter or digit turned into _.
It exits 1 if no project is up in this folder, while it is starting (wraith
up returns once every twin is ready: run env after it), or when
.wraith/up.json does not name the live wraith process holding its lock.`,
		Example: `  wraith env --format json | jq -r .twins.billing.url
  eval "$(wraith env --format shell)"
  wraith env --format github >> "$GITHUB_ENV"`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runEnv(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "json", "output format: json, shell, dotenv or github")
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project's folder (default ./"+manifest.DefaultFile+")")
	cmd.Flags().StringVar(&opts.Session, "session", "", "`SESSION` to name in the proxy variables' credential (with [proxy])")
	return cmd
}

func (o *envOptions) check() error {
	switch o.Format {
	case "json", "shell", "dotenv", "github":
		if o.Session != "" {
			if err := session.ValidateName(o.Session); err != nil {
				return usagef("--session: %v", err)
			}
		}
		return nil
	}
	return usagef("--format must be json, shell, dotenv or github, got %q", o.Format)
}

func runEnv(ctx context.Context, opts *envOptions) error {
	st, err := probeProject(opts.f, opts.File)
	if err != nil {
		return err
	}
	doc := envDocument(st)
	px, err := projectProxy(st.Dir, st)
	if err != nil {
		return err
	}
	if px != nil {
		doc.Proxy = &envProxy{URL: px.URL, CAFile: px.CAFile, Hosts: px.Hosts}
		doc.session = opts.Session
	}
	w := opts.f.Stdout
	if opts.Format == "json" {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	return writeEnvLines(w, opts.Format, doc)
}

// probeProject finds the running project of -f FILE's folder or of the
// working folder. No project, or a dead supervisor, is an error (exit 1).
func probeProject(f *factory, file string) (supervisor.State, error) {
	path, err := manifestPath(f, file)
	if err != nil {
		return supervisor.State{}, err
	}
	return supervisor.Probe(filepath.Dir(path))
}

// envDoc is `wraith env --format json`, exactly as SPEC §7 has it.
type envDoc struct {
	Project       string             `json:"project"`
	SupervisorPID int                `json:"supervisor_pid"`
	Twins         map[string]envTwin `json:"twins"`
	// Proxy is the project's forward proxy ([proxy]); absent without one.
	Proxy *envProxy `json:"proxy,omitempty"`

	order    []string          // twin names in manifest order
	tokenEnv map[string]string // name -> control_token_env
	session  string            // --session, for the proxy variables
}

// envProxy is the project's forward proxy in `wraith env`.
type envProxy struct {
	URL    string   `json:"url"`
	CAFile string   `json:"ca_file"`
	Hosts  []string `json:"hosts"`
}

type envTwin struct {
	URL           string      `json:"url"`
	Host          string      `json:"host"`
	Port          int         `json:"port"`
	PID           int         `json:"pid"`
	SessionHeader string      `json:"wraith_session_header"`
	Digest        string      `json:"digest"`
	Control       ipc.Control `json:"control"`
}

func envDocument(st supervisor.State) envDoc {
	doc := envDoc{Project: st.Project, SupervisorPID: st.SupervisorPID, Twins: map[string]envTwin{}, tokenEnv: map[string]string{}}
	for _, t := range st.Twins {
		s := t.Ready.Serve
		doc.order = append(doc.order, t.Name)
		doc.tokenEnv[t.Name] = t.ControlTokenEnv
		doc.Twins[t.Name] = envTwin{
			URL: s.URL, Host: s.Host, Port: s.Port, PID: s.PID,
			SessionHeader: s.SessionHeader, Digest: s.Digest, Control: s.Control,
		}
	}
	return doc
}

func marshalLine(doc envDoc) ([]byte, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode project settings: %w", err)
	}
	return append(b, '\n'), nil
}

// envVars lists each twin's variables, in manifest order.
func envVars(doc envDoc) [][2]string {
	var vars [][2]string
	for _, name := range doc.order {
		t := doc.Twins[name]
		p := manifest.EnvPrefix(name)
		vars = append(vars,
			[2]string{p + "_URL", t.URL},
			[2]string{p + "_HOST", t.Host},
			[2]string{p + "_PORT", strconv.Itoa(t.Port)},
			[2]string{p + "_SESSION_HEADER", t.SessionHeader},
			[2]string{p + "_DIGEST", t.Digest},
		)
		if v := doc.tokenEnv[name]; v != "" {
			vars = append(vars, [2]string{p + "_CONTROL_TOKEN_ENV", v})
		}
	}
	if doc.Proxy != nil {
		// Lower case too: curl reads only http_proxy for plain HTTP.
		vars = append(vars, proxyVars(doc.Proxy.URL, doc.session)...)
		vars = append(vars, caVars(doc.Proxy.CAFile)...)
	}
	return vars
}

var plainValue = regexp.MustCompile(`^[A-Za-z0-9_./:@%+,=-]*$`)

func writeEnvLines(w io.Writer, format string, doc envDoc) error {
	var b strings.Builder
	for _, kv := range envVars(doc) {
		k, v := kv[0], kv[1]
		switch format {
		case "shell":
			b.WriteString("export " + k + "=" + shellQuote(v) + "\n")
		case "dotenv":
			b.WriteString(k + "=" + dotenvQuote(v) + "\n")
		case "github":
			if strings.ContainsAny(v, "\r\n") {
				// GitHub's multi-line syntax, with a delimiter the value cannot contain.
				var rnd [8]byte
				rand.Read(rnd[:])
				delim := "WRAITH_EOF_" + hex.EncodeToString(rnd[:])
				b.WriteString(k + "<<" + delim + "\n" + v + "\n" + delim + "\n")
			} else {
				b.WriteString(k + "=" + v + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func shellQuote(v string) string {
	if v != "" && plainValue.MatchString(v) {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

func dotenvQuote(v string) string {
	if plainValue.MatchString(v) {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(v) + `"`
}
