package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
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
// report's shape (SPEC §9) over the whole fleet.
type fleetCoverage struct {
	Replicas []replicaAnswer `json:"replicas"`
	Routes   []coverageRoute `json:"routes"`
	Misses   []coverageMiss  `json:"misses"`
}

type coverageRoute struct {
	Method string           `json:"method"`
	Route  string           `json:"route"`
	Hits   map[string]int64 `json:"hits"`
}

type coverageMiss struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Count   int64  `json:"count"`
	Session int64  `json:"sessions"`
	FirstAt string `json:"first_at"`
	LastAt  string `json:"last_at"`
}

func mergeCoverage(answers []replicaAnswer) (*fleetCoverage, error) {
	out := &fleetCoverage{Replicas: answers, Routes: []coverageRoute{}, Misses: []coverageMiss{}}
	routes := map[string]int{}
	misses := map[string]int{}
	for i, a := range answers {
		if a.body == nil {
			continue
		}
		var doc struct {
			Routes []coverageRoute `json:"routes"`
			Misses []struct {
				coverageMiss
				Sessions json.RawMessage `json:"sessions"`
			} `json:"misses"`
		}
		if err := json.Unmarshal(a.body, &doc); err != nil {
			answers[i].Error = fmt.Sprintf("GET /__wraith/coverage: not a coverage report: %v", err)
			continue
		}
		for _, r := range doc.Routes {
			key := r.Method + " " + r.Route
			j, ok := routes[key]
			if !ok {
				j = len(out.Routes)
				routes[key] = j
				out.Routes = append(out.Routes, coverageRoute{Method: r.Method, Route: r.Route, Hits: map[string]int64{}})
			}
			for k, n := range r.Hits {
				out.Routes[j].Hits[k] += n
			}
		}
		for _, m := range doc.Misses {
			// Sessions are disjoint across replicas, so per-replica
			// session counts add up.
			m.coverageMiss.Session = sessionCount(m.Sessions)
			key := m.Method + " " + m.Path
			j, ok := misses[key]
			if !ok {
				misses[key] = len(out.Misses)
				out.Misses = append(out.Misses, m.coverageMiss)
				continue
			}
			have := &out.Misses[j]
			have.Count += m.Count
			have.Session += m.coverageMiss.Session
			if m.FirstAt != "" && (have.FirstAt == "" || m.FirstAt < have.FirstAt) {
				have.FirstAt = m.FirstAt
			}
			if m.LastAt > have.LastAt {
				have.LastAt = m.LastAt
			}
		}
	}
	sort.Slice(out.Routes, func(i, j int) bool {
		a, b := out.Routes[i], out.Routes[j]
		return a.Route < b.Route || a.Route == b.Route && a.Method < b.Method
	})
	sort.SliceStable(out.Misses, func(i, j int) bool {
		a, b := out.Misses[i], out.Misses[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Path < b.Path || a.Path == b.Path && a.Method < b.Method
	})
	return out, nil
}

// sessionCount reads a miss's "sessions": a count, or a list of names.
func sessionCount(raw json.RawMessage) int64 {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var names []string
	if json.Unmarshal(raw, &names) == nil {
		return int64(len(names))
	}
	return 0
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
		fmt.Fprintln(tw, "METHOD\tROUTE\tRECORDED\tTEMPLATE\tHANDLER\tFIXTURE\tFAULT\tMISS")
		for _, r := range m.Routes {
			h := r.Hits
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", r.Method, r.Route, h["recorded"], h["template"], h["handler"], h["fixture"], h["fault"], h["miss"])
		}
		if len(m.Misses) > 0 {
			fmt.Fprintln(tw, "\nMISSED\tPATH\tCOUNT\tSESSIONS\tFIRST\tLAST")
			for _, x := range m.Misses {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", x.Method, x.Path, x.Count, x.Session, x.FirstAt, x.LastAt)
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
