package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/internal/serve"
	"github.com/wraithdev/wraith/twin/server"
)

// docSkip marks a shell block of the docs that the docs tests must not
// run; the rest of its first line says why.
const docSkip = "# doc-test: skip"

// docBlock is one ```sh block of a document.
type docBlock struct {
	file  string
	line  int // of the opening fence
	text  string
	skip  bool
	block string // the whole code block a snippet comes from
}

// shellBlocks returns the ```sh blocks of a Markdown file.
func shellBlocks(tb testing.TB, path string) []docBlock {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	var body strings.Builder
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && (trimmed == "```sh" || trimmed == "```bash"):
			cur = &docBlock{file: path, line: i + 1}
			body.Reset()
		case cur != nil && trimmed == "```":
			cur.text = body.String()
			cur.skip = strings.HasPrefix(strings.TrimSpace(cur.text), docSkip)
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	return out
}

// repoRoot is the module root, two folders up from this package.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// TestDocsRun runs every shell block of the guide and of the README, in
// order, one document per bash, in an empty folder with the freshly built
// binaries first on PATH. Blocks marked `# doc-test: skip` are left out;
// there must be few.
func TestDocsRun(t *testing.T) {
	t.Parallel()
	needTools(t, "bash", "jq", "curl", "openssl")
	root := repoRoot(t)
	for _, doc := range []string{"docs/guide.md", "README.md"} {
		t.Run(doc, func(t *testing.T) {
			blocks := shellBlocks(t, filepath.Join(root, doc))
			var script strings.Builder
			ran, skipped := 0, 0
			for _, b := range blocks {
				if b.skip {
					skipped++
					continue
				}
				ran++
				fmt.Fprintf(&script, "echo '>>> %s:%d'\n%s\n", doc, b.line, b.text)
			}
			if ran == 0 {
				t.Fatalf("%s has no shell block to run", doc)
			}
			if skipped > 2 {
				t.Errorf("%s skips %d of %d shell blocks: docs that run are the point", doc, skipped, ran+skipped)
			}
			// A curl of the docs that gets an HTTP error fails the block:
			// the docs show no call that is meant to fail.
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".curlrc"), []byte("fail-with-body\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := shell(t, t.TempDir(), script.String(), "HOME="+home, "CURL_HOME="+home)
			if err != nil {
				t.Fatalf("%s: %v; the last block started is the last '>>>' line:\n%s", doc, err, out)
			}
			t.Logf("%s: ran %d blocks, skipped %d", doc, ran, skipped)
		})
	}
}

var (
	codeSpan = regexp.MustCompile("`[^`\n]+`")
	// wraithCall is a command line that runs wraith: at the start, after
	// a "$ " prompt and variable assignments.
	wraithCall  = regexp.MustCompile(`^\s*(?:\$ )?(?:[A-Z_][A-Z0-9_]*=\S* )*(wraith(?:-twin)?)(?: ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)*))?(?:\s|$)`)
	flagToken   = regexp.MustCompile(`(?:^|[\s\[(|])--([a-z][a-z0-9-]*)`)
	controlPath = regexp.MustCompile(`/__wraith/[A-Za-z0-9_{}.$:/-]*`)
	shellBreak  = regexp.MustCompile(` (?:\||&&|\|\||;|&) |\$\(|\n`)
)

// docSnippets returns the command lines a Markdown file shows: each code
// block's logical lines (backslash continuations joined) and each inline
// code span, with the line they start on.
func docSnippets(tb testing.TB, path string) []docBlock {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []docBlock
	sc := bufio.NewScanner(f)
	inCode := false
	var logical strings.Builder
	start, first := 0, 0
	var block strings.Builder
	// Prose is read a paragraph at a time, so that a code span broken
	// over two lines is still one span.
	var para strings.Builder
	paraLine := 0
	flushPara := func() {
		for _, span := range codeSpan.FindAllString(para.String(), -1) {
			out = append(out, docBlock{file: path, line: paraLine, text: strings.Trim(span, "`")})
		}
		para.Reset()
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			flushPara()
			inCode = !inCode
			if inCode {
				first, block = len(out), strings.Builder{}
			} else {
				for i := first; i < len(out); i++ {
					out[i].block = block.String()
				}
			}
			continue
		}
		if inCode {
			block.WriteString(line + "\n")
			if logical.Len() == 0 {
				start = n
			}
			if s, ok := strings.CutSuffix(line, "\\"); ok {
				logical.WriteString(s + " ")
				continue
			}
			logical.WriteString(line)
			out = append(out, docBlock{file: path, line: start, text: logical.String()})
			logical.Reset()
			continue
		}
		if strings.TrimSpace(line) == "" {
			flushPara()
			continue
		}
		if para.Len() == 0 {
			paraLine = n
		}
		para.WriteString(line + " ")
	}
	flushPara()
	return out
}

// TestDocsFlagsExist fails when the docs or the README show a flag that
// the command they give it to does not have, a command that does not
// exist, or a control path the control plane does not serve.
func TestDocsFlagsExist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	f, _, _ := testFactory(t.TempDir(), nil)
	cli := newRootCmd(f)
	twinFlags := flag.NewFlagSet("wraith-twin", flag.ContinueOnError)
	serve.Flags(twinFlags)

	url := docsServer(t)
	checkedFlags, checkedPaths := 0, 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for _, s := range docSnippets(t, file) {
			where := fmt.Sprintf("%s:%d", rel, s.line)
			for _, seg := range shellBreak.Split(s.text, -1) {
				m := wraithCall.FindStringSubmatchIndex(seg)
				if m == nil {
					continue
				}
				bin := seg[m[2]:m[3]]
				rest := seg[m[3]:]
				var words []string
				if m[4] >= 0 {
					words = strings.Fields(seg[m[4]:m[5]])
				}
				var flags [][]string
				for _, fl := range flagToken.FindAllStringSubmatch(rest, -1) {
					// A block that shows the error for a mistyped flag
					// mistypes it on purpose.
					if !strings.Contains(s.block, "unknown flag: --"+fl[1]) {
						flags = append(flags, fl)
					}
				}
				if bin == "wraith-twin" {
					for _, fl := range flags {
						checkedFlags++
						if twinFlags.Lookup(fl[1]) == nil && fl[1] != "help" {
							t.Errorf("%s: wraith-twin has no flag --%s (in %q)", where, fl[1], s.text)
						}
					}
					continue
				}
				if len(words) == 0 {
					continue // `wraith --help` and the like
				}
				cmd, _, err := cli.Find(words)
				if err != nil || cmd == cli {
					t.Errorf("%s: wraith has no command %q (in %q)", where, words[0], s.text)
					continue
				}
				for _, fl := range flags {
					checkedFlags++
					if fl[1] == "help" {
						continue
					}
					if cmd.Flags().Lookup(fl[1]) == nil && cmd.InheritedFlags().Lookup(fl[1]) == nil {
						t.Errorf("%s: wraith %s has no flag --%s (in %q)", where, cmd.Name(), fl[1], s.text)
					}
				}
			}
			for _, p := range controlPath.FindAllString(s.text, -1) {
				p = strings.TrimRight(p, ".:")
				if p == "/__wraith/" || strings.Contains(p, "*") {
					continue // the prefix itself
				}
				checkedPaths++
				if code := controlCode(t, url, p); code == "control-not-found" {
					t.Errorf("%s: the control plane serves no %s (in %q)", where, p, s.text)
				}
			}
		}
	}
	if checkedFlags < 50 || checkedPaths < 10 {
		t.Errorf("checked only %d flags and %d control paths: is the scanner still finding them?", checkedFlags, checkedPaths)
	}
	t.Logf("checked %d documented flags and %d control paths", checkedFlags, checkedPaths)
}

var pathVar = regexp.MustCompile(`\{[^}/]*\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)

// controlCode asks the control plane for path and returns the error code
// of its answer, if any.
func controlCode(tb testing.TB, base, path string) string {
	tb.Helper()
	path = pathVar.ReplaceAllString(path, "doc-probe")
	resp, err := http.Get(base + path)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(body, &e)
	return e.Error.Code
}

// docsServer serves the checkout twin in-process, with --debug so that
// every documented endpoint exists, until the test ends.
func docsServer(tb testing.TB) string {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := server.Flags(fs)
	cfg.Twin, cfg.Debug = "checkout", true
	srv, err := server.Open(*cfg, server.Deps{Getenv: func(string) string { return "" }, Dir: tb.TempDir(), Version: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	return srv.URL()
}
