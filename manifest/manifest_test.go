package manifest

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func ptr[T any](v T) *T { return &v }

func TestParseGuideExample(t *testing.T) {
	p, err := Load("testdata/guide.toml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/guide.toml")
	want := &Project{
		File: abs, Dir: filepath.Dir(abs), Name: "testdata",
		Twins: []Twin{{
			Name: "billing", Twin: "billing", Host: "127.0.0.1", Port: 8081,
			Fixture: "checkout:happy-path", Clock: "deterministic", ClockEpoch: ptr(int64(1700000000)),
			ControlTokenEnv: "WRAITH_CONTROL_TOKEN", Line: 1,
		}},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("want %+v\nhave %+v", want.Twins, p.Twins)
	}
	wantFlags := []string{"--fixture=checkout:happy-path", "--clock=deterministic", "--clock-epoch=1700000000", "--control-token-env=WRAITH_CONTROL_TOKEN"}
	if have := p.Twins[0].Flags(); !reflect.DeepEqual(have, wantFlags) {
		t.Errorf("flags: want %q, have %q", wantFlags, have)
	}
}

func TestParseDefaultsMerge(t *testing.T) {
	src := `
project = "shop"

[defaults]
clock = "fixed"
clock_epoch = 2023-11-14T22:13:20Z
seed = 7
debug = true
unknown_entity = "not_found"
fault_profile = "flaky"
twin = "checkout"

[[twins]]
name = "a"

[[twins]]
name = "b"
twin = "billing"
seed = 0
debug = false
clock = "real"
rate_limit = "100/m"
host = "::1"
port = 9090
`
	p, err := Parse("/x/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		have, want Twin
	}{
		{p.Twins[0], Twin{Name: "a", Twin: "checkout", Host: "127.0.0.1", Seed: ptr(uint64(7)), Clock: "fixed",
			ClockEpoch: ptr(int64(1700000000)), UnknownEntity: "not_found", FaultProfile: "flaky", Debug: true, Line: 13}},
		{p.Twins[1], Twin{Name: "b", Twin: "billing", Host: "::1", Port: 9090, Seed: ptr(uint64(0)), Clock: "real",
			ClockEpoch: ptr(int64(1700000000)), UnknownEntity: "not_found", FaultProfile: "flaky", RateLimit: "100/m", Line: 16}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.have, tt.want) {
			t.Errorf("want %+v\nhave %+v", tt.want, tt.have)
		}
	}
	if p.Name != "shop" || p.Dir != "/x" {
		t.Errorf("want project shop in /x, have %q in %q", p.Name, p.Dir)
	}
	// The epoch from [defaults] means nothing to b's real clock, and
	// wraith-twin refuses --clock real --clock-epoch N: it is left out.
	wantFlags := []string{"--seed=0", "--clock=real", "--unknown-entity=not_found", "--fault-profile=flaky", "--rate-limit=100/m"}
	if have := p.Twins[1].Flags(); !reflect.DeepEqual(have, wantFlags) {
		t.Errorf("flags: want %q, have %q", wantFlags, have)
	}
}

// TestParseProblems walks testdata/problems: each NAME.toml must fail with
// exactly the problems in NAME.golden (rewrite with -update).
func TestParseProblems(t *testing.T) {
	files, _ := filepath.Glob("testdata/problems/*.toml")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(filepath.Base(file), data)
			var merr *Error
			if !errors.As(err, &merr) {
				t.Fatalf("want a *manifest.Error, have %v", err)
			}
			have := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".toml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(have), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if have != string(want) {
				t.Errorf("want\n%s\nhave\n%s", want, have)
			}
			for _, p := range merr.Problems {
				if p.Line == 0 && p.Key != "twins" {
					t.Errorf("problem without a line: %s", p)
				}
			}
		})
	}
}

func TestParseReportsEveryProblemAtOnce(t *testing.T) {
	data, err := os.ReadFile("testdata/problems/many.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("many.toml", data)
	var merr *Error
	if !errors.As(err, &merr) {
		t.Fatalf("want *Error, have %v", err)
	}
	wantKeys := []string{"colour", "defaults.name", "defaults.port", "defaults.clock", "defaults.seed",
		"twins[0].port", "twins[0].prot", "twins[0].rate_limit", "twins[1].unknown_entity", "twins[1].debug",
		"twins[1].clock_epoch", "twins[2].name", "twins[2].fixture", "twins[2].control_token_env", "twins[3]", "twins[3].port"}
	have := map[string]bool{}
	for _, p := range merr.Problems {
		have[p.Key] = true
	}
	for _, k := range wantKeys {
		if !have[k] {
			t.Errorf("no problem reported for %s; have %v", k, merr.Problems)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), DefaultFile))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("want ErrNotExist, have %v", err)
	}
	if !strings.Contains(err.Error(), "pass -f FILE") {
		t.Errorf("message does not say how to fix it: %v", err)
	}
}

func TestEnvPrefix(t *testing.T) {
	tests := map[string]string{
		"billing":     "WRAITH_BILLING",
		"billing-api": "WRAITH_BILLING_API",
		"Shop_2":      "WRAITH_SHOP_2",
	}
	for in, want := range tests {
		if have := EnvPrefix(in); have != want {
			t.Errorf("EnvPrefix(%q): want %q, have %q", in, want, have)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.toml")
	more, _ := filepath.Glob("testdata/problems/*.toml")
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.toml", data)
		if err == nil && len(p.Twins) == 0 {
			t.Fatal("a valid project has at least one twin")
		}
		var merr *Error
		if err != nil && (!errors.As(err, &merr) || len(merr.Problems) == 0) {
			t.Fatalf("error without problems: %v", err)
		}
	})
}

// TestPIIVerbatimFlag: pii_verbatim, from [defaults] or the twin's own
// table, reaches wraith-twin as one --pii-verbatim flag.
func TestPIIVerbatimFlag(t *testing.T) {
	src := "[defaults]\npii_verbatim = [\"email\"]\n\n[[twins]]\nname = \"a\"\n\n[[twins]]\nname = \"b\"\npii_verbatim = [\"email\", \"name\"]\n"
	p, err := Parse("/x/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"--pii-verbatim=email"}, {"--pii-verbatim=email,name"}} {
		if have := p.Twins[i].Flags(); !reflect.DeepEqual(have, want) {
			t.Errorf("twins[%d]: want %q, have %q", i, want, have)
		}
	}
}

// TestLimitFlags: the serve limits, from [defaults] or the twin's own
// table, reach wraith-twin as their flags, sizes in bytes.
func TestLimitFlags(t *testing.T) {
	src := `[defaults]
journal_limit = 200
max_memory = "512MiB"

[[twins]]
name = "a"

[[twins]]
name = "b"
max_memory = 0
max_body = "10 MB"
max_sessions = 5
max_entities = 7

[[twins]]
name = "c"
max_body = 4096
journal_limit = 1
`
	p, err := Parse("/x/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"--journal-limit=200", "--max-memory=536870912"},
		{"--journal-limit=200", "--max-sessions=5", "--max-entities=7", "--max-body=10000000", "--max-memory=0"},
		{"--journal-limit=1", "--max-body=4096", "--max-memory=536870912"},
	}
	for i := range want {
		if have := p.Twins[i].Flags(); !reflect.DeepEqual(have, want[i]) {
			t.Errorf("twins[%d]: want %q, have %q", i, want[i], have)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true}, {"1KiB", 1024, true}, {"512MiB", 512 << 20, true}, {"2 GiB", 2 << 30, true},
		{"10MB", 10e6, true}, {"1TB", 1e12, true}, {"7B", 7, true}, {"0", 0, true},
		{"", 0, false}, {"MiB", 0, false}, {"-1MiB", 0, false}, {"1.5GiB", 0, false}, {"1 gib", 0, false},
		{"9223372036854775807", 9223372036854775807, true}, {"9223372036854775807KiB", 0, false},
	}
	for _, tt := range tests {
		have, ok := parseSize(tt.in)
		if have != tt.want || ok != tt.ok {
			t.Errorf("parseSize(%q): want %d %v, have %d %v", tt.in, tt.want, tt.ok, have, ok)
		}
	}
}
