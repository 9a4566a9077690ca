package openapi

import (
	"encoding/json"
	"slices"
	"sort"
)

// ReportVersion is the version of import-report.json.
const ReportVersion = 1

// Report is import-report.json: what the import inferred and how sure it
// is, and what it could not resolve.
type Report struct {
	Format     int          `json:"format"`
	Source     ReportSource `json:"source"`
	Counts     Counts       `json:"counts"`
	Resources  []Inference  `json:"inferred"`
	Unresolved []Unresolved `json:"unresolved"`
}

// ReportSource describes the imported description.
type ReportSource struct {
	OpenAPI string `json:"openapi"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

// Counts are the import's totals.
type Counts struct {
	Operations int `json:"operations"`
	Resources  int `json:"resources"`
	// Stateful operations are served by a resource's handlers.
	Stateful int `json:"operations_stateful"`
	// Template operations are declared routes answering their response
	// shape.
	Template int `json:"operations_template"`
	// Unserved operations have no JSON answer to serve (files, 204s
	// without a shape); they are declared and answer a structured miss.
	Unserved int `json:"operations_unserved"`
	// Skipped operations have a path the twin's router cannot serve (a
	// parameter that is not a whole segment, /files/{id}.json): they are
	// left out of the twin, each with an unresolved entry saying why.
	// Omitted when none, so reports without any keep their bytes.
	Skipped    int `json:"operations_skipped,omitempty"`
	Unresolved int `json:"unresolved"`
}

// Inference is one fact the importer inferred about a resource.
type Inference struct {
	Resource   string  `json:"resource"`
	Fact       string  `json:"fact"`
	Value      string  `json:"value"`
	Basis      string  `json:"basis,omitempty"`
	Confidence float64 `json:"confidence"`
}

// Unresolved is something the importer could not decide, and what it did.
type Unresolved struct {
	Subject    string `json:"subject"`
	Reason     string `json:"reason"`
	Confidence string `json:"confidence"` // how sure the importer is of its fallback
}

func newReport() *Report { return &Report{Format: ReportVersion} }

// AddInferred records a fact inferred about a resource, with what it was
// inferred from and how sure the importer is (0 to 1).
func (r *Report) AddInferred(resource, fact, value, basis string, confidence float64) {
	r.Resources = append(r.Resources, Inference{Resource: resource, Fact: fact, Value: value, Basis: basis, Confidence: confidence})
}

// Retract removes what was inferred of a resource's fact, which a later
// inference replaced (an id prefix, where the ids are minted as digits).
func (r *Report) Retract(resource, fact string) {
	r.Resources = slices.DeleteFunc(r.Resources, func(in Inference) bool { return in.Resource == resource && in.Fact == fact })
}

// AddUnresolved records what the importer could not decide and what it
// did instead; confidence ("high", "medium", "low") is in that fallback.
func (r *Report) AddUnresolved(subject, reason, confidence string) {
	r.Unresolved = append(r.Unresolved, Unresolved{Subject: subject, Reason: reason, Confidence: confidence})
}

// encode sorts the report and encodes it, indented.
func (r *Report) encode() []byte {
	sort.SliceStable(r.Resources, func(i, j int) bool {
		a, b := r.Resources[i], r.Resources[j]
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Fact < b.Fact
	})
	sort.SliceStable(r.Unresolved, func(i, j int) bool {
		a, b := r.Unresolved[i], r.Unresolved[j]
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.Reason < b.Reason
	})
	r.Counts.Unresolved = len(r.Unresolved)
	if r.Resources == nil {
		r.Resources = []Inference{}
	}
	if r.Unresolved == nil {
		r.Unresolved = []Unresolved{}
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}
