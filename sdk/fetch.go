package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// downloadModule fetches mod (path@version) through the Go module proxy
// into the module cache and returns its folder there.
func downloadModule(ctx context.Context, mod string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod).Output()
	var info struct{ Dir, Error string }
	json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s: the Go module proxy must be reachable", mod, err, info.Error)
	}
	return info.Dir, nil
}

// prepareStripeGo copies stripe-go's module into dst, once per version
// (the module cache's copy is read-only, and go test writes beside it).
func prepareStripeGo(ctx context.Context, dst string) error {
	stamp := filepath.Join(dst, ".sdk-module")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == stripeGoModule {
		return nil
	}
	dir, err := downloadModule(ctx, stripeGoModule)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := copyTree(dir, dst); err != nil {
		return fmt.Errorf("copy %s: %w", stripeGoModule, err)
	}
	return os.WriteFile(stamp, []byte(stripeGoModule), 0o644)
}

// buildStripeMock builds stripe-mock's command from its module into bin,
// once per version.
func buildStripeMock(ctx context.Context, bin string) (string, error) {
	exe := filepath.Join(bin, "stripe-mock")
	stamp := exe + ".module"
	if b, err := os.ReadFile(stamp); err == nil && string(b) == stripeMockModule {
		if _, err := os.Stat(exe); err == nil {
			return exe, nil
		}
	}
	cmd := exec.CommandContext(ctx, "go", "install", stripeMockPackage+"@"+strings.SplitN(stripeMockModule, "@", 2)[1])
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build stripe-mock from %s: %v: %s", stripeMockModule, err, lastLines(string(out), 5))
	}
	return exe, os.WriteFile(stamp, []byte(stripeMockModule), 0o644)
}

// buildWraith builds the wraith command of the repository at repo into
// bin, every run: the point is to measure the tree as it is.
func buildWraith(ctx context.Context, repo, bin string) (string, error) {
	exe := filepath.Join(bin, "wraith")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", exe, "./cmd/wraith")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build wraith in %s: %v: %s", repo, err, lastLines(string(out), 5))
	}
	return exe, nil
}

// copyTree copies the regular files and folders under src to dst, the
// files writable by their owner.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
