package egress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Files of a CA folder. The key file holds the key and the certificate
// and is the one source of truth: it is created atomically (linked into
// place, never overwritten), so two sandboxes starting at once agree on
// one CA. The certificate file, for programs to trust, is rewritten from
// it on every load.
const (
	CAKeyFile  = "ca-key.pem"
	CACertFile = "ca.pem"
)

// Lifetimes. A leaf never outlives its CA, and is minted again once it is
// within leafRenew of its end, so a long-running proxy never serves an
// expired one.
const (
	caLifetime   = 10 * 365 * 24 * time.Hour
	leafLifetime = 30 * 24 * time.Hour
	leafRenew    = time.Hour
	// backdate covers a child whose clock is a little behind.
	backdate = time.Hour
)

// CA is a local certificate authority that mints a leaf certificate per
// host on demand. Its key never leaves its folder and this process.
type CA struct {
	// CertFile is the CA certificate for programs to trust.
	CertFile string

	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	now  func() time.Time

	mu     sync.Mutex
	leaves map[string]*tls.Certificate
}

// LoadCA loads the CA of dir, creating it (ECDSA P-256) on first use. The
// folder is made 0700 and the key file 0600; a key file that others can
// read is refused, since anyone holding it can impersonate any host to
// every sandboxed program. now nil means time.Now.
func LoadCA(dir string, now func() time.Time) (*CA, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the CA folder: %w", err)
	}
	keyPath := filepath.Join(dir, CAKeyFile)
	b, err := readKeyFile(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createCA(keyPath, now()); err != nil {
			return nil, err
		}
		b, err = readKeyFile(keyPath)
	}
	if err != nil {
		return nil, err
	}
	ca, err := parseCA(b, keyPath)
	if err != nil {
		return nil, err
	}
	ca.now, ca.leaves = now, map[string]*tls.Certificate{}
	ca.CertFile = filepath.Join(dir, CACertFile)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
	if err := writeAtomic(ca.CertFile, certPEM, 0o644); err != nil {
		return nil, fmt.Errorf("write the CA certificate: %w", err)
	}
	return ca, nil
}

// maxKeyFile bounds what is read of a key file: a real one is under 1 KiB.
const maxKeyFile = 64 << 10

func readKeyFile(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: wraith writes its CA key as one; remove it and a new CA is made", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is readable by others (mode %04o): chmod 600 it, or remove it and a new CA is made", path, fi.Mode().Perm())
	}
	if fi.Size() > maxKeyFile {
		return nil, fmt.Errorf("%s is %d bytes, more than a CA key: remove it and a new CA is made", path, fi.Size())
	}
	return os.ReadFile(path)
}

func createCA(keyPath string, now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate the CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "Wraith sandbox CA", Organization: []string{"Wraith"}},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("create the CA certificate: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	b = append(b, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	tmp, err := os.CreateTemp(filepath.Dir(keyPath), ".ca-key-*")
	if err != nil {
		return fmt.Errorf("write the CA key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write the CA key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Link fails if another sandbox made the CA meanwhile: theirs wins.
	if err := os.Link(tmp.Name(), keyPath); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write the CA key: %w", err)
	}
	return nil
}

func parseCA(b []byte, path string) (*CA, error) {
	ca := &CA{}
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		switch blk.Type {
		case "EC PRIVATE KEY":
			k, err := x509.ParseECPrivateKey(blk.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: the key does not parse (%v): remove the file and a new CA is made", path, err)
			}
			ca.key = k
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: the certificate does not parse (%v): remove the file and a new CA is made", path, err)
			}
			ca.cert = c
		}
	}
	if ca.key == nil || ca.cert == nil || !ca.cert.IsCA {
		return nil, fmt.Errorf("%s does not hold a CA key and certificate: remove it and a new CA is made", path)
	}
	if !ca.key.PublicKey.Equal(ca.cert.PublicKey) {
		return nil, fmt.Errorf("%s: the key does not match the certificate: remove the file and a new CA is made", path)
	}
	return ca, nil
}

// Leaf returns a certificate for host, minted on first use and cached.
// Only hosts the sandbox maps reach here, so the cache is bounded by the
// routing table.
func (ca *CA) Leaf(host string) (*tls.Certificate, error) {
	host = normalHost(host)
	now := ca.now()
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if c := ca.leaves[host]; c != nil && now.Add(leafRenew).Before(c.Leaf.NotAfter) {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	notAfter := now.Add(leafLifetime)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    now.Add(-backdate),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("mint a certificate for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf}
	ca.leaves[host] = c
	return c, nil
}

// Pool is a certificate pool holding the CA, for tests and in-process
// clients.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n.Add(n, big.NewInt(1))
}

func writeAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
