package egress

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCACreatesPrivateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ca")
	ca, err := LoadCA(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want os.FileMode
	}{
		{dir, 0o700 | os.ModeDir},
		{filepath.Join(dir, CAKeyFile), 0o600},
		{filepath.Join(dir, CACertFile), 0o644},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if have := fi.Mode(); have != c.want {
			t.Errorf("%s: want mode %v, have %v", c.path, c.want, have)
		}
	}
	cert, err := os.ReadFile(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cert), "PRIVATE KEY") {
		t.Error("the certificate file holds the private key")
	}
	again, err := LoadCA(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !again.cert.Equal(ca.cert) {
		t.Error("a second load made another CA: want the one on disk")
	}
}

func TestCALeafVerifies(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ca, err := LoadCA(t.TempDir(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Leaf("API.Stripe.com")
	if err != nil {
		t.Fatal(err)
	}
	opts := x509.VerifyOptions{DNSName: "api.stripe.com", Roots: ca.Pool(), CurrentTime: now}
	if _, err := leaf.Leaf.Verify(opts); err != nil {
		t.Errorf("leaf for api.stripe.com: %v", err)
	}
	opts.DNSName = "api.github.com"
	if _, err := leaf.Leaf.Verify(opts); err == nil {
		t.Error("the api.stripe.com leaf verifies for api.github.com")
	}
	if same, _ := ca.Leaf("api.stripe.com"); same != leaf {
		t.Error("a second Leaf minted again: want the cached one")
	}
	now = now.Add(leafLifetime)
	if renewed, _ := ca.Leaf("api.stripe.com"); renewed == leaf {
		t.Error("a leaf at the end of its life was served again: want a new one")
	}
}

func TestCARefusesHostileKey(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"readable by others", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, CAKeyFile), 0o644)
		}, "is readable by others (mode 0644): chmod 600 it"},
		{"not a CA", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, CAKeyFile), []byte("junk"), 0o600)
		}, "does not hold a CA key and certificate"},
		{"a symlink", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, CAKeyFile))
			os.Symlink("/etc/passwd", filepath.Join(dir, CAKeyFile))
		}, "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := LoadCA(dir, nil); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			_, err := LoadCA(dir, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("want an error with %q, have %v", tt.want, err)
			}
		})
	}
}

// Sandboxes started at once in one project must agree on one CA, or a
// program trusting one would refuse the other's certificates.
func TestCAConcurrentCreate(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	cas := make([]*CA, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cas[i], errs[i] = LoadCA(dir, nil)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !cas[i].cert.Equal(cas[0].cert) {
			t.Fatalf("load %d made a CA of its own", i)
		}
	}
}
