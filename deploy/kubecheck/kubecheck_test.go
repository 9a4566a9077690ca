package kubecheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// manifests are the objects of ../kubernetes/*.yaml, decoded strictly
// into their API types, by kind and name.
type manifests struct {
	statefulSets map[string]*appsv1.StatefulSet
	deployments  map[string]*appsv1.Deployment
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	ingresses    map[string]*networkingv1.Ingress
}

// decoders are the kinds the manifests may hold, each with the apiVersion
// it must carry.
var kinds = map[string]string{
	"StatefulSet": "apps/v1",
	"Deployment":  "apps/v1",
	"Service":     "v1",
	"ConfigMap":   "v1",
	"Ingress":     "networking.k8s.io/v1",
}

func load(tb testing.TB) *manifests {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no manifests under ../kubernetes: %v", err)
	}
	m := &manifests{
		statefulSets: map[string]*appsv1.StatefulSet{},
		deployments:  map[string]*appsv1.Deployment{},
		services:     map[string]*corev1.Service{},
		configMaps:   map[string]*corev1.ConfigMap{},
		ingresses:    map[string]*networkingv1.Ingress{},
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for i, doc := range splitDocuments(b) {
			where := fmt.Sprintf("%s, document %d", filepath.Base(f), i+1)
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				tb.Fatalf("%s: %v", where, err)
			}
			if want, ok := kinds[tm.Kind]; !ok || tm.APIVersion != want {
				tb.Fatalf("%s: kind %q, apiVersion %q: want one of %v with its apiVersion", where, tm.Kind, tm.APIVersion, kinds)
			}
			var obj interface{ GetName() string }
			switch tm.Kind {
			case "StatefulSet":
				obj = decode(tb, where, doc, m.statefulSets)
			case "Deployment":
				obj = decode(tb, where, doc, m.deployments)
			case "Service":
				obj = decode(tb, where, doc, m.services)
			case "ConfigMap":
				obj = decode(tb, where, doc, m.configMaps)
			case "Ingress":
				obj = decode(tb, where, doc, m.ingresses)
			}
			if obj.GetName() == "" {
				tb.Fatalf("%s: a %s without metadata.name", where, tm.Kind)
			}
		}
	}
	return m
}

// decode reads doc strictly into a new T and files it under its name.
func decode[T any, P interface {
	*T
	GetName() string
}](tb testing.TB, where string, doc []byte, into map[string]P) P {
	tb.Helper()
	var obj P = new(T)
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		tb.Fatalf("%s: not a valid object of its kind: %v", where, err)
	}
	if into[obj.GetName()] != nil {
		tb.Fatalf("%s: a second object named %q of its kind", where, obj.GetName())
	}
	into[obj.GetName()] = obj
	return obj
}

// splitDocuments splits a YAML stream at its "---" lines, dropping
// documents that hold only comments.
func splitDocuments(b []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		for _, line := range strings.Split(d, "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				docs = append(docs, []byte(d))
				break
			}
		}
	}
	return docs
}

// one returns the single value of m, failing when there is not exactly one.
func one[T any](tb testing.TB, kind string, m map[string]T) T {
	tb.Helper()
	if len(m) != 1 {
		tb.Fatalf("want one %s, have %d", kind, len(m))
	}
	for _, v := range m {
		return v
	}
	panic("unreachable")
}

func get[T any](tb testing.TB, kind, name string, m map[string]*T) *T {
	tb.Helper()
	v := m[name]
	if v == nil {
		tb.Fatalf("no %s named %q among the manifests", kind, name)
	}
	return v
}

// selects reports whether selector matches every label it names.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// flagValue returns the value of --name=V in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func envValue(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// goBytes reads a size as GOMEMLIMIT and wraith's --max-memory write it:
// a whole number with B, KiB, MiB, GiB or TiB, or plain bytes.
func goBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			return v * u.mult, err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

func TestManifests(t *testing.T) {
	m := load(t)
	sts := one(t, "StatefulSet", m.statefulSets)
	pods := get(t, "Service", sts.Spec.ServiceName, m.services)

	t.Run("replicas", func(t *testing.T) {
		if sts.Spec.Replicas == nil || *sts.Spec.Replicas < 1 {
			t.Fatalf("StatefulSet %s: want spec.replicas of 1 or more", sts.Name)
		}
		if !selects(sts.Spec.Selector.MatchLabels, sts.Spec.Template.Labels) {
			t.Errorf("StatefulSet %s: selector %v does not select its own pod template's labels %v", sts.Name, sts.Spec.Selector.MatchLabels, sts.Spec.Template.Labels)
		}
		if pods.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("Service %s (the StatefulSet's serviceName): want a headless Service (clusterIP: None) giving each pod its name, have clusterIP %q", pods.Name, pods.Spec.ClusterIP)
		}
		if !pods.Spec.PublishNotReadyAddresses {
			t.Errorf("Service %s: want publishNotReadyAddresses, so that a restarting pod keeps its name and its sessions stay in the router's ring", pods.Name)
		}
		if !selects(pods.Spec.Selector, sts.Spec.Template.Labels) {
			t.Errorf("Service %s selects %v, not the StatefulSet's pods %v", pods.Name, pods.Spec.Selector, sts.Spec.Template.Labels)
		}
	})

	c := sts.Spec.Template.Spec.Containers[0]
	t.Run("container", func(t *testing.T) {
		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		for _, p := range pods.Spec.Ports {
			if _, ok := ports[p.TargetPort.String()]; !ok {
				t.Errorf("Service %s targets port %q, which the container does not name (%v)", pods.Name, p.TargetPort.String(), ports)
			}
		}
		probes := []struct {
			name  string
			probe *corev1.Probe
			path  string
		}{
			{"startupProbe", c.StartupProbe, "/__wraith/health"},
			{"readinessProbe", c.ReadinessProbe, "/__wraith/ready"},
			{"livenessProbe", c.LivenessProbe, "/__wraith/health"},
		}
		for _, p := range probes {
			if p.probe == nil || p.probe.HTTPGet == nil {
				t.Errorf("%s: want an httpGet of %s", p.name, p.path)
				continue
			}
			if p.probe.HTTPGet.Path != p.path {
				t.Errorf("%s: want GET %s, have %s", p.name, p.path, p.probe.HTTPGet.Path)
			}
			if _, ok := ports[p.probe.HTTPGet.Port.String()]; !ok {
				t.Errorf("%s: port %q is not one the container names", p.name, p.probe.HTTPGet.Port.String())
			}
		}
		if len(c.Command) != 0 {
			t.Errorf("the container sets command %q, which replaces the image's ENTRYPOINT: leave it to the image and give args", c.Command)
		}
		if len(c.Args) == 0 || strings.HasPrefix(c.Args[0], "-") || c.Args[0] == "serve" {
			t.Errorf("args %q: want the twin first; the image's ENTRYPOINT already says wraith serve", c.Args)
		}
		tok := envValue(c, "WRAITH_CONTROL_TOKEN")
		if tok == nil || tok.ValueFrom == nil || tok.ValueFrom.SecretKeyRef == nil || tok.ValueFrom.SecretKeyRef.Name == "" || tok.ValueFrom.SecretKeyRef.Key == "" {
			t.Errorf("WRAITH_CONTROL_TOKEN (the image's --control-token-env): want it from a Secret (valueFrom.secretKeyRef)")
		}
		if _, ok := flagValue(c.Args, "journal-limit"); !ok {
			t.Errorf("args %q: want a --journal-limit, so that a session's journal cannot take the pod's memory", c.Args)
		}
		if !slices.Contains(c.Args, "--require-provisioned") {
			t.Errorf("args %q: want --require-provisioned, so that a session on the wrong replica is an error, not a fresh world", c.Args)
		}
	})

	t.Run("memory", func(t *testing.T) {
		limit, ok := c.Resources.Limits[corev1.ResourceMemory]
		if !ok {
			t.Fatal("the container has no memory limit")
		}
		gomem := envValue(c, "GOMEMLIMIT")
		if gomem == nil {
			t.Fatal("the container sets no GOMEMLIMIT")
		}
		soft, err := goBytes(gomem.Value)
		if err != nil {
			t.Fatalf("GOMEMLIMIT %q: %v", gomem.Value, err)
		}
		mm, ok := flagValue(c.Args, "max-memory")
		if !ok {
			t.Fatal("args: want --max-memory")
		}
		maxMemory, err := goBytes(mm)
		if err != nil {
			t.Fatalf("--max-memory=%s: %v", mm, err)
		}
		// The runtime needs room beside the heap (stacks, buffers, its
		// own structures), and wraith refuses writes before the runtime
		// has to fight for memory.
		if lim := limit.Value(); soft > lim*9/10 || maxMemory > soft*3/4 {
			t.Errorf("memory: want --max-memory (%s) at most 3/4 of GOMEMLIMIT (%s), and GOMEMLIMIT at most 9/10 of the limit (%s)", mm, gomem.Value, limit.String())
		}
		if req := c.Resources.Requests[corev1.ResourceMemory]; req.Cmp(limit) != 0 {
			t.Errorf("memory request %s, limit %s: want them equal, so that a node never evicts a replica for using what it was promised", req.String(), limit.String())
		}
	})

	t.Run("state volume", func(t *testing.T) {
		if len(sts.Spec.VolumeClaimTemplates) != 1 {
			t.Fatalf("want one volumeClaimTemplate (each pod's state folder), have %d", len(sts.Spec.VolumeClaimTemplates))
		}
		claim := sts.Spec.VolumeClaimTemplates[0]
		if size := claim.Spec.Resources.Requests[corev1.ResourceStorage]; size.Cmp(resource.MustParse("1Mi")) < 0 {
			t.Errorf("volumeClaimTemplate %s: want a storage request, have %q", claim.Name, size.String())
		}
		var mount string
		for _, vm := range c.VolumeMounts {
			if vm.Name == claim.Name {
				mount = vm.MountPath
			}
		}
		if mount == "" {
			t.Fatalf("the container mounts no volume %q (the volumeClaimTemplate)", claim.Name)
		}
		if dir, ok := flagValue(c.Args, "state-dir"); !ok || dir != mount {
			t.Errorf("args %q: want --state-dir=%s, the state volume's mount path", c.Args, mount)
		}
		if sc := sts.Spec.Template.Spec.SecurityContext; sc == nil || sc.FSGroup == nil || sc.RunAsUser == nil || *sc.FSGroup != *sc.RunAsUser {
			t.Errorf("pod securityContext: want fsGroup equal to runAsUser, so the image's user can write its state volume")
		}
	})

	t.Run("router", func(t *testing.T) { checkRouter(t, m, sts, pods) })
}

// checkRouter: the router's nginx configuration is deploy/nginx's, with an
// upstream of the StatefulSet's pods by name; its Deployment mounts it and
// its Service (and the Ingress) lead to it.
func checkRouter(t *testing.T, m *manifests, sts *appsv1.StatefulSet, pods *corev1.Service) {
	cm := get(t, "ConfigMap", "wraith-router", m.configMaps)
	mainConf, err := os.ReadFile(filepath.Join("..", "nginx", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["nginx.conf"] != string(mainConf) {
		t.Errorf("ConfigMap %s: nginx.conf differs from deploy/nginx/nginx.conf: copy it over", cm.Name)
	}
	fleet, err := os.ReadFile(filepath.Join("..", "nginx", "wraith-fleet.conf"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := cm.Data["wraith-fleet.conf.template"]
	if want, have := routerShape(string(fleet)), routerShape(tmpl); want != have {
		t.Errorf("ConfigMap %s: wraith-fleet.conf.template differs from deploy/nginx/wraith-fleet.conf outside the upstream block and the listen address:\nwant %s\nhave %s", cm.Name, want, have)
	}
	var want []string
	for i := range *sts.Spec.Replicas {
		want = append(want, fmt.Sprintf("%s-%d.%s.${POD_NAMESPACE}.svc.cluster.local:%d resolve max_fails=0", sts.Name, i, pods.Name, pods.Spec.Ports[0].Port))
	}
	var have []string
	for _, s := range regexp.MustCompile(`(?m)^\s*server (\S+ [^;]*);`).FindAllStringSubmatch(tmpl, -1) {
		have = append(have, s[1])
	}
	if !slices.Equal(want, have) {
		t.Errorf("the router's upstream: want one server per StatefulSet replica, by name, %q, have %q", want, have)
	}
	for _, conf := range []string{string(fleet), tmpl} {
		if !strings.Contains(conf, "proxy_next_upstream off;") || !strings.Contains(conf, "hash $wraith_session consistent;") {
			t.Errorf("want hash $wraith_session consistent and proxy_next_upstream off in both nginx configurations")
		}
	}

	dep := get(t, "Deployment", "wraith-router", m.deployments)
	if !selects(dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels) {
		t.Errorf("Deployment %s: selector %v does not select its pods %v", dep.Name, dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels)
	}
	if selects(sts.Spec.Selector.MatchLabels, dep.Spec.Template.Labels) || selects(dep.Spec.Selector.MatchLabels, sts.Spec.Template.Labels) {
		t.Errorf("the router's pods and the replicas' pods are selected by one another's selectors")
	}
	mounted := map[string]bool{}
	for _, vm := range dep.Spec.Template.Spec.Containers[0].VolumeMounts {
		mounted[vm.SubPath] = true
	}
	for key := range cm.Data {
		if !mounted[key] {
			t.Errorf("Deployment %s does not mount ConfigMap key %s", dep.Name, key)
		}
	}
	svc := get(t, "Service", "wraith", m.services)
	if !selects(svc.Spec.Selector, dep.Spec.Template.Labels) {
		t.Errorf("Service %s selects %v, not the router's pods %v", svc.Name, svc.Spec.Selector, dep.Spec.Template.Labels)
	}
	for _, ing := range m.ingresses {
		for _, r := range ing.Spec.Rules {
			for _, p := range r.HTTP.Paths {
				if b := p.Backend.Service; b == nil || b.Name != svc.Name || b.Port.Name != svc.Spec.Ports[0].Name {
					t.Errorf("Ingress %s: want its backend to be Service %s port %s (the routers)", ing.Name, svc.Name, svc.Spec.Ports[0].Name)
				}
			}
			if len(ing.Annotations) > 0 || ing.Spec.IngressClassName != nil {
				t.Errorf("Ingress %s: want no controller-specific class or annotations (%v): the routers do the hashing", ing.Name, ing.Annotations)
			}
		}
	}
}

// routerShape is an nginx configuration without comments, its upstream
// block, resolver and listen lines, whitespace collapsed: what the router's
// template must share with deploy/nginx/wraith-fleet.conf.
func routerShape(conf string) string {
	var b bytes.Buffer
	for _, line := range strings.Split(conf, "\n") {
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line[:i], "'") {
			line = line[:i]
		}
		b.WriteString(line + "\n")
	}
	s := regexp.MustCompile(`(?s)upstream wraith \{.*?\n\s*\}`).ReplaceAllString(b.String(), "")
	s = regexp.MustCompile(`(?m)^\s*(resolver|listen) [^;]*;`).ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), " ")
}
