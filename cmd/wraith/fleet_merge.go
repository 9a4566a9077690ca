package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/wraithdev/wraith/twin/observe"
	"github.com/wraithdev/wraith/twin/prov"
)

// fleetSessions is `wraith fleet sessions --format json`: every replica's
// sessions, each as the replica lists it plus "replica".
type fleetSessions struct {
	Replicas []replicaAnswer  `json:"replicas"`
	Sessions []map[string]any `json:"sessions"`
	// Duplicates names sessions found on more than one replica: the
	// router is not sharding by session (docs/fleet.md).
	Duplicates []string `json:"duplicates,omitempty"`
}

func mergeSessions(answers []replicaAnswer) (*fleetSessions, error) {
	out := &fleetSessions{Replicas: answers, Sessions: []map[string]any{}}
	where := map[string]int{}
	for i, a := range answers {
		if a.body == nil {
			continue
		}
		var doc struct {
			Sessions []map[string]any `json:"sessions"`
		}
		dec := json.NewDecoder(bytes.NewReader(a.body))
		dec.UseNumber() // seeds are 64-bit
		if err := dec.Decode(&doc); err != nil {
			answers[i].Error = fmt.Sprintf("GET /__wraith/session: not a session list: %v", err)
			continue
		}
		for _, s := range doc.Sessions {
			s["replica"] = a.Replica
			out.Sessions = append(out.Sessions, s)
			name, _ := s["session"].(string)
			where[name]++
		}
	}
	sort.SliceStable(out.Sessions, func(i, j int) bool {
		a, _ := out.Sessions[i]["session"].(string)
		b, _ := out.Sessions[j]["session"].(string)
		return a < b
	})
	for name, n := range where {
		if n > 1 {
			out.Duplicates = append(out.Duplicates, name)
		}
	}
	sort.Strings(out.Duplicates)
	return out, nil
}

// fleetReset is `wraith fleet reset --format json`.
type fleetReset struct {
	Reset    bool            `json:"reset"`
	Sessions int             `json:"sessions"`
	Replicas []replicaAnswer `json:"replicas"`
}

func mergeReset(answers []replicaAnswer) (*fleetReset, error) {
	out := &fleetReset{Reset: true, Replicas: answers}
	for i, a := range answers {
		if a.body == nil {
			out.Reset = false
			continue
		}
		var doc struct {
			Sessions int `json:"sessions"`
		}
		if err := json.Unmarshal(a.body, &doc); err != nil {
			answers[i].Error = fmt.Sprintf("POST /__wraith/reset: not a reset answer: %v", err)
			out.Reset = false
			continue
		}
		out.Sessions += doc.Sessions
	}
	return out, nil
}

// fleetCoverage is `wraith fleet coverage --format json`: the coverage
// report (observe.Report, SPEC §9) over the whole fleet, with the
// replicas that answered.
type fleetCoverage struct {
	Replicas []replicaAnswer `json:"replicas"`
	observe.Report
}

// mergeCoverage merges the replicas' reports into one of the same shape:
// route hits summed per provenance; misses merged by method and path
// (counts summed, sessions united up to the report's bound with the rest
// counted in sessions_more, earliest first_at, latest last_at);
// misses_dropped summed, misses_limit the largest a replica keeps.
func mergeCoverage(answers []replicaAnswer) (*fleetCoverage, error) {
	out := &fleetCoverage{Replicas: answers, Report: observe.Report{Routes: []observe.RouteReport{}, Misses: []observe.MissReport{}}}
	routes := map[string]int{}
	misses := map[string]int{}
	for i, a := range answers {
		if a.body == nil {
			continue
		}
		var doc observe.Report
		if err := json.Unmarshal(a.body, &doc); err != nil {
			answers[i].Error = fmt.Sprintf("GET /__wraith/coverage: not a coverage report: %v", err)
			continue
		}
		out.MissesDropped += doc.MissesDropped
		out.MissesLimit = max(out.MissesLimit, doc.MissesLimit)
		for _, r := range doc.Routes {
			key := r.Method + " " + r.Route
			j, ok := routes[key]
			if !ok {
				j = len(out.Routes)
				routes[key] = j
				out.Routes = append(out.Routes, observe.RouteReport{Method: r.Method, Route: r.Route, Hits: map[string]int64{}})
			}
			for k, n := range r.Hits {
				out.Routes[j].Hits[k] += n
			}
		}
		for _, m := range doc.Misses {
			key := m.Method + " " + m.Path
			j, ok := misses[key]
			if !ok {
				misses[key] = len(out.Misses)
				m.Sessions = slices.Clone(m.Sessions)
				out.Misses = append(out.Misses, m)
				continue
			}
			have := &out.Misses[j]
			have.Count += m.Count
			have.Sessions, have.SessionsMore = observe.MergeSessions(have.Sessions, have.SessionsMore, m.Sessions, m.SessionsMore)
			if m.FirstAt != "" && (have.FirstAt == "" || m.FirstAt < have.FirstAt) {
				have.FirstAt = m.FirstAt
			}
			if m.LastAt > have.LastAt {
				have.LastAt = m.LastAt
			}
		}
	}
	observe.SortReport(&out.Report)
	return out, nil
}

// fleetMetrics is `wraith fleet metrics --format json`; the text format
// is Metrics alone.
type fleetMetrics struct {
	Replicas []replicaAnswer `json:"replicas"`
	Metrics  string          `json:"metrics"`
}

// mergeMetrics joins the replicas' Prometheus text into one document:
// each metric family once, with its HELP and TYPE, and every sample
// labelled replica="URL". Labelling rather than summing keeps histograms
// and gauges right; sum by (…) in a query gives fleet totals.
func mergeMetrics(answers []replicaAnswer) *fleetMetrics {
	type family struct {
		meta    []string
		samples []string
	}
	var order []string
	fams := map[string]*family{}
	get := func(name string) *family {
		f := fams[name]
		if f == nil {
			f = &family{}
			fams[name] = f
			order = append(order, name)
		}
		return f
	}
	for _, a := range answers {
		if a.body == nil {
			continue
		}
		label := `replica="` + escapeLabel(a.Replica) + `"`
		current := ""
		sc := bufio.NewScanner(bytes.NewReader(a.body))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			switch {
			case line == "":
			case strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE "):
				fields := strings.Fields(line)
				if len(fields) < 3 {
					continue
				}
				current = fields[2]
				f := get(current)
				if len(f.meta) < 2 && !contains(f.meta, line) {
					f.meta = append(f.meta, line)
				}
			case strings.HasPrefix(line, "#"):
			default:
				name := line
				if i := strings.IndexAny(line, "{ "); i >= 0 {
					name = line[:i]
				}
				fam := current
				if fam == "" || !strings.HasPrefix(name, fam) {
					fam = name
				}
				get(fam).samples = append(get(fam).samples, addLabel(line, name, label))
			}
		}
	}
	var b strings.Builder
	for _, name := range order {
		f := fams[name]
		for _, m := range f.meta {
			b.WriteString(m + "\n")
		}
		for _, s := range f.samples {
			b.WriteString(s + "\n")
		}
	}
	return &fleetMetrics{Replicas: answers, Metrics: b.String()}
}

// addLabel puts label first in a sample line's label set.
func addLabel(line, name, label string) string {
	rest := line[len(name):]
	if strings.HasPrefix(rest, "{}") {
		return name + "{" + label + "}" + rest[2:]
	}
	if strings.HasPrefix(rest, "{") {
		return name + "{" + label + "," + rest[1:]
	}
	return name + "{" + label + "}" + rest
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeFleetText prints a merged answer for people.
func writeFleetText(w io.Writer, merged any) {
	if m, ok := merged.(*fleetMetrics); ok {
		io.WriteString(w, m.Metrics)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	switch m := merged.(type) {
	case *fleetSessions:
		fmt.Fprintln(tw, "SESSION\tREPLICA\tPROVISIONED\tREQUESTS\tENTITIES\tFIXTURE\tSEED")
		for _, s := range m.Sessions {
			fixture := "-"
			if f, ok := s["fixture"].(string); ok {
				fixture = f
			}
			fmt.Fprintf(tw, "%v\t%v\t%v\t%v\t%v\t%s\t%v\n", s["session"], s["replica"], s["provisioned"], number(s["requests"]), number(s["entities"]), fixture, number(s["seed"]))
		}
		fmt.Fprintf(tw, "%d sessions on %d replicas\n", len(m.Sessions), answered(m.Replicas))
		for _, d := range m.Duplicates {
			fmt.Fprintf(tw, "warning: session %s is on more than one replica: the router does not shard by session\n", d)
		}
	case *fleetReset:
		fmt.Fprintf(tw, "reset %d sessions on %d replicas\n", m.Sessions, answered(m.Replicas))
	case *fleetCoverage:
		fmt.Fprintln(tw, "METHOD\tROUTE\t"+strings.ToUpper(strings.Join(prov.All[:], "\t")))
		for _, r := range m.Routes {
			fmt.Fprintf(tw, "%s\t%s", r.Method, r.Route)
			for _, p := range prov.All {
				fmt.Fprintf(tw, "\t%d", r.Hits[p])
			}
			fmt.Fprintln(tw)
		}
		if len(m.Misses) > 0 {
			fmt.Fprintln(tw, "\nMISSED\tPATH\tCOUNT\tSESSIONS\tFIRST\tLAST")
			for _, x := range m.Misses {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", x.Method, x.Path, x.Count, int64(len(x.Sessions))+x.SessionsMore, x.FirstAt, x.LastAt)
			}
		}
	}
}

// number prints a JSON number, or - when there is none.
func number(v any) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(v)
}

func answered(list []replicaAnswer) int {
	n := 0
	for _, a := range list {
		if a.Error == "" {
			n++
		}
	}
	return n
}
