package server

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestRestoreValidates: a snapshot's settings go through the rules
// provisioning does, and its entities through the twin's limits and
// resources; each bad document is a 400 with the code provisioning would
// answer, and nothing is stored.
func TestRestoreValidates(t *testing.T) {
	srv := startServer(t, "checkout", "--max-entities", "3")
	base := srv.URL()
	provisionDet(t, base, "src")
	fill(t, base, "src", 2)
	resp, snap := do(t, base, call{path: "/__wraith/session/src/snapshot"})
	if resp.StatusCode != 200 {
		t.Fatalf("snapshot: %d %s", resp.StatusCode, snap)
	}
	if resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/good/snapshot", json: string(snap)}); resp.StatusCode != 201 {
		t.Fatalf("restoring the snapshot as taken: want 201, have %d %s", resp.StatusCode, body)
	}
	entity := func(id, object string) map[string]any {
		return map[string]any{"id": id, "object": object, "body": map[string]any{"id": id, "object": object}, "created": 1700000000, "seq": 1, "provenance": "handler"}
	}
	for _, tc := range []struct {
		name, code string
		edit       func(doc map[string]any)
	}{
		{"negative epoch", "invalid-clock", func(d map[string]any) { settings(d)["clock_epoch"] = -1 }},
		{"epoch past 2199", "invalid-clock", func(d map[string]any) { settings(d)["clock_epoch"] = 7258118400 }},
		{"unknown clock", "invalid-clock", func(d map[string]any) { settings(d)["clock"] = "sundial" }},
		{"step 0s", "invalid-clock", func(d map[string]any) { settings(d)["clock_step"] = "0s" }},
		{"step over 24h", "invalid-clock", func(d map[string]any) { settings(d)["clock_step"] = "25h" }},
		{"step on a fixed clock", "invalid-clock", func(d map[string]any) { settings(d)["clock"] = "fixed" }},
		{"pii_verbatim bad name", "invalid-pii-verbatim", func(d map[string]any) { settings(d)["pii_verbatim"] = []string{"bad name"} }},
		{"more entities than --max-entities", "invalid-snapshot", func(d map[string]any) {
			var ents []any
			for i := range 4 {
				ents = append(ents, entity(fmt.Sprintf("cus_x%d", i), "customer"))
			}
			d["entities"] = ents
		}},
		{"an object that is no resource", "invalid-snapshot", func(d map[string]any) {
			d["entities"] = []any{entity("zz_1", "zeppelin")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(snap, &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(doc)
			b, _ := json.Marshal(doc)
			resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/bad/snapshot", json: string(b)})
			if resp.StatusCode != 400 || errorCode(body) != tc.code {
				t.Errorf("want 400 %s, have %d %s", tc.code, resp.StatusCode, body)
			}
			if srv.Engine().Store().Get("bad") != nil {
				t.Errorf("a refused snapshot was stored")
			}
		})
	}
}

func settings(doc map[string]any) map[string]any { return doc["settings"].(map[string]any) }
