package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// object is one Kubernetes object, as generic YAML.
type object map[string]any

// get walks keys (map keys, or list indexes as ints) down from o.
func (o object) get(path ...any) any {
	var v any = map[string]any(o)
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func (o object) str(path ...any) string { s, _ := o.get(path...).(string); return s }

// manifests reads every object of kubernetes/*.yaml by kind.
func manifests(tb testing.TB) map[string]object {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no manifests under kubernetes/: %v", err)
	}
	kinds := map[string]object{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o map[string]any
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				tb.Fatalf("%s: %v", f, err)
			}
			obj := object(o)
			kind := obj.str("kind")
			if kind == "" || obj.str("apiVersion") == "" || obj.str("metadata", "name") == "" {
				tb.Fatalf("%s: an object without kind, apiVersion or metadata.name: %v", f, o)
			}
			if kinds[kind] != nil {
				tb.Fatalf("%s: a second %s", f, kind)
			}
			kinds[kind] = obj
		}
	}
	return kinds
}

func TestKubernetesManifests(t *testing.T) {
	k := manifests(t)
	for _, kind := range []string{"Deployment", "Service", "Ingress", "ConfigMap"} {
		if k[kind] == nil {
			t.Fatalf("want a %s among the manifests, have %v", kind, slices.Sorted(func(yield func(string) bool) {
				for n := range k {
					if !yield(n) {
						return
					}
				}
			}))
		}
	}
	dep, svc, ing := k["Deployment"], k["Service"], k["Ingress"]

	// Labels and selectors agree.
	match, _ := dep.get("spec", "selector", "matchLabels").(map[string]any)
	podLabels, _ := dep.get("spec", "template", "metadata", "labels").(map[string]any)
	svcSelector, _ := svc.get("spec", "selector").(map[string]any)
	if len(match) == 0 {
		t.Fatal("the Deployment has no spec.selector.matchLabels")
	}
	for key, v := range match {
		if podLabels[key] != v {
			t.Errorf("Deployment selector %s=%v: the pod template has %v", key, v, podLabels[key])
		}
	}
	for key, v := range svcSelector {
		if podLabels[key] != v {
			t.Errorf("Service selector %s=%v: the pods have %v", key, v, podLabels[key])
		}
	}
	if len(svcSelector) == 0 {
		t.Error("the Service selects no pods")
	}

	// The container runs wraith serve off loopback behind a token from a Secret.
	c := object(map[string]any{"c": dep.get("spec", "template", "spec", "containers", 0)})
	args, _ := c.get("c", "args").([]any)
	var argv []string
	for _, a := range args {
		s, _ := a.(string)
		argv = append(argv, s)
	}
	if len(argv) < 2 || argv[0] != "serve" {
		t.Fatalf("container args: want serve TWIN ..., have %q", argv)
	}
	tokenVar := ""
	for _, a := range argv {
		if v, ok := strings.CutPrefix(a, "--control-token-env="); ok {
			tokenVar = v
		}
	}
	if tokenVar == "" || !slices.Contains(argv, "--host=0.0.0.0") {
		t.Errorf("container args: want --host=0.0.0.0 and --control-token-env=VAR, have %q", argv)
	}
	fromSecret := false
	env, _ := c.get("c", "env").([]any)
	for _, e := range env {
		e := object(e.(map[string]any))
		if e.str("name") == tokenVar && e.str("valueFrom", "secretKeyRef", "name") != "" && e.str("valueFrom", "secretKeyRef", "key") != "" {
			fromSecret = true
		}
	}
	if !fromSecret {
		t.Errorf("the container's %s: want it from a Secret (valueFrom.secretKeyRef)", tokenVar)
	}
	portName := c.str("c", "ports", 0, "name")
	if c.str("c", "readinessProbe", "httpGet", "path") != "/__wraith/ready" {
		t.Error("readinessProbe: want GET /__wraith/ready")
	}

	// Service -> container port, Ingress -> Service.
	if have := svc.str("spec", "ports", 0, "targetPort"); have != portName {
		t.Errorf("Service targetPort: want the container's port %q, have %q", portName, have)
	}
	backend := object(map[string]any{"b": ing.get("spec", "rules", 0, "http", "paths", 0, "backend", "service")})
	if have := backend.str("b", "name"); have != svc.str("metadata", "name") {
		t.Errorf("Ingress backend: want Service %q, have %q", svc.str("metadata", "name"), have)
	}
	if have := backend.str("b", "port", "name"); have != svc.str("spec", "ports", 0, "name") {
		t.Errorf("Ingress backend port: want the Service's %q, have %q", svc.str("spec", "ports", 0, "name"), have)
	}

	// The same hash key as the nginx configuration, defined the same way.
	if have := ing.str("metadata", "annotations", "nginx.ingress.kubernetes.io/upstream-hash-by"); have != "$wraith_session" {
		t.Errorf("upstream-hash-by: want $wraith_session, have %q", have)
	}
	conf, err := os.ReadFile(filepath.Join("nginx", "wraith-fleet.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), "hash $wraith_session consistent;") {
		t.Error("nginx/wraith-fleet.conf: want hash $wraith_session consistent;")
	}
	want, have := mapBlocks(string(conf)), mapBlocks(k["ConfigMap"].str("data", "http-snippet"))
	if len(want) == 0 || !slices.Equal(want, have) {
		t.Errorf("the ConfigMap's http-snippet maps differ from nginx/wraith-fleet.conf's:\nwant %q\nhave %q", want, have)
	}
}

var mapRe = regexp.MustCompile(`(?s)map [^{]*\{.*?\n\s*\}`)

// mapBlocks returns the map blocks of an nginx configuration, whitespace
// collapsed.
func mapBlocks(conf string) []string {
	var out []string
	for _, m := range mapRe.FindAllString(conf, -1) {
		out = append(out, strings.Join(strings.Fields(m), " "))
	}
	return out
}
