package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(tb testing.TB, url, body string) (int, string) {
	tb.Helper()
	return send(tb, http.MethodPost, url, body)
}

func send(tb testing.TB, method, url, body string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

const guideProvision = `{
    "session": "agent-17",
    "fixture": "checkout:happy-path",
    "seed": 17017,
    "clock": {
      "mode": "deterministic",
      "base_epoch": 1700000000
    }
  }`

func TestProvisionAsTheGuideSays(t *testing.T) {
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	url := srv.URL() + "/__wraith/session"
	const want = `{"session":"agent-17","fixture":"checkout:happy-path","seed":17017,"clock":{"mode":"deterministic","base_epoch":1700000000},"fault_profile":null,"rate_limit":null,"entities_seeded":12}`

	if code, body := post(t, url, guideProvision); code != http.StatusCreated || body != want {
		t.Fatalf("first provisioning: want 201 %s, have %d %s", want, code, body)
	}
	same := strings.Replace(guideProvision, `"base_epoch"`, `"base_epoch_secs"`, 1)
	if code, body := post(t, url, same); code != http.StatusOK || body != want {
		t.Errorf("same settings again (base_epoch_secs spelling): want 200 %s, have %d %s", want, code, body)
	}
	if code, body := post(t, url+"/agent-17", `{"fixture":"happy-path","seed":17017,"clock":{"mode":"deterministic","base_epoch":1700000000}}`); code != http.StatusOK || body != want {
		t.Errorf("POST session/{id} with a bare set name: want 200 %s, have %d %s", want, code, body)
	}

	code, body := post(t, url, `{"session":"agent-17","fixture":"checkout:baseline","seed":1}`)
	var conflict struct {
		Error struct {
			Code      string
			Existing  struct{ Fixture string }
			Requested struct{ Fixture string }
		}
	}
	json.Unmarshal([]byte(body), &conflict)
	if code != http.StatusConflict || conflict.Error.Code != "session-provision-conflict" ||
		conflict.Error.Existing.Fixture != "checkout:happy-path" || conflict.Error.Requested.Fixture != "checkout:baseline" {
		t.Errorf("conflicting settings: want 409 session-provision-conflict with existing and requested, have %d %s", code, body)
	}

	code, body = post(t, url, `{"session":"agent-18","fixture":"checkout:nope"}`)
	var notFound struct {
		Error struct {
			Code      string
			Available []string
		}
	}
	json.Unmarshal([]byte(body), &notFound)
	if code != http.StatusNotFound || notFound.Error.Code != "fixture-not-found" || strings.Join(notFound.Error.Available, ",") != "checkout:baseline,checkout:happy-path" {
		t.Errorf("unknown fixture: want 404 fixture-not-found listing the sets, have %d %s", code, body)
	}
	if code, body := post(t, url, `{"session":"agent-19","clock":{"mode":"sundial"}}`); code != http.StatusBadRequest || !strings.Contains(body, `"invalid-clock"`) {
		t.Errorf("bad clock mode: want 400 invalid-clock, have %d %s", code, body)
	}
	if code, body := post(t, url, `{"session":"agent-19","colour":"blue"}`); code != http.StatusBadRequest || !strings.Contains(body, `"invalid-json"`) {
		t.Errorf("unknown field: want 400 invalid-json, have %d %s", code, body)
	}
	if code, body := post(t, url, `{"session":"agent-19","seed":-1}`); code != http.StatusBadRequest || !strings.Contains(body, `"invalid-seed"`) {
		t.Errorf("negative seed: want 400 invalid-seed, have %d %s", code, body)
	}
}

func TestImportedFixtureForBilling(t *testing.T) {
	srv := startServer(t, "billing", "--fixture", "checkout:happy-path")
	code, body := post(t, srv.URL()+"/__wraith/session", `{"session":"b1","fixture":"checkout:happy-path"}`)
	if code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("provision billing with checkout:happy-path: %d %s", code, body)
	}
	if !strings.Contains(body, `"fixture":"checkout:happy-path"`) {
		t.Errorf("provisioned body: %s", body)
	}
}

func TestSessionLifecycle(t *testing.T) {
	srv := startServer(t, "checkout", "--debug", "--seed", "5", "--clock", "fixed", "--clock-epoch", "1000")
	base := srv.URL()
	create := func(session string) string {
		resp, body := do(t, base, call{method: "POST", path: "/v1/customers", session: session, form: "description=x"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("create in %s: %d %s", session, resp.StatusCode, body)
		}
		var c struct{ ID string }
		json.Unmarshal(body, &c)
		return c.ID
	}
	first := create("life")
	create("bystander")

	code, body := send(t, http.MethodGet, base+"/__wraith/session/life/state", "")
	if code != http.StatusOK || !strings.Contains(body, first) || !strings.Contains(body, `"change":"created"`) {
		t.Errorf("state: want 200 listing the created %s, have %d %s", first, code, body)
	}
	if code, _ := send(t, http.MethodGet, base+"/__wraith/session/ghost/state", ""); code != http.StatusNotFound {
		t.Errorf("state of a missing session: want 404, have %d", code)
	}
	if code, body := send(t, http.MethodGet, base+"/__wraith/session", ""); code != http.StatusOK || strings.Contains(body, "ghost") {
		t.Errorf("state must not create sessions: %d %s", code, body)
	}

	code, body = post(t, base+"/__wraith/session/life/clock", `{"advance_secs":60}`)
	if code != http.StatusOK || !strings.Contains(body, `"now":1060`) {
		t.Errorf("advance a fixed clock: want now 1060, have %d %s", code, body)
	}
	code, body = post(t, base+"/__wraith/session/life/reset", "")
	if code != http.StatusOK || !strings.Contains(body, `"reset":true`) {
		t.Fatalf("reset: %d %s", code, body)
	}
	if resp, _ := do(t, base, call{path: "/v1/customers/" + first, session: "life"}); resp.Header.Get("X-Wraith-Provenance") != "template" {
		t.Errorf("after reset the created customer must be gone: provenance %q", resp.Header.Get("X-Wraith-Provenance"))
	}
	if again := create("life"); again != first {
		t.Errorf("after reset the id generator must restart: want %s, have %s", first, again)
	}
	if resp, _ := do(t, base, call{path: "/v1/customers/" + first, session: "bystander"}); resp.Header.Get("X-Wraith-Provenance") != "handler" {
		t.Errorf("resetting one session touched another: bystander's %s has provenance %q", first, resp.Header.Get("X-Wraith-Provenance"))
	}

	code, body = post(t, base+"/__wraith/reset", "")
	if code != http.StatusOK || body != `{"reset":true,"sessions":2}` {
		t.Errorf("global reset: want {\"reset\":true,\"sessions\":2}, have %d %s", code, body)
	}
	if code, _ := send(t, http.MethodDelete, base+"/__wraith/session/life", ""); code != http.StatusOK {
		t.Errorf("delete: want 200, have %d", code)
	}
	if code, body := send(t, http.MethodDelete, base+"/__wraith/session/life", ""); code != http.StatusNotFound || !strings.Contains(body, "session-not-found") {
		t.Errorf("delete twice: want 404 session-not-found, have %d %s", code, body)
	}
	if code, body := post(t, base+"/__wraith/session/life/reset", ""); code != http.StatusNotFound || !strings.Contains(body, "session-not-found") {
		t.Errorf("reset a deleted session: want 404, have %d %s", code, body)
	}
}

func TestClockEndpointRefusesRealClocks(t *testing.T) {
	srv := startServer(t, "checkout")
	do(t, srv.URL(), call{path: "/v1/customers/cus_123", session: "real"})
	if code, body := post(t, srv.URL()+"/__wraith/session/real/clock", `{"set_epoch":5}`); code != http.StatusConflict || !strings.Contains(body, "clock-not-movable") {
		t.Errorf("move a real clock: want 409 clock-not-movable, have %d %s", code, body)
	}
	if code, body := send(t, http.MethodGet, srv.URL()+"/__wraith/session/real/state", ""); code != http.StatusNotFound || !strings.Contains(body, "debug-disabled") {
		t.Errorf("state without --debug: want 404 debug-disabled, have %d %s", code, body)
	}
}

func TestReadyAndInfo(t *testing.T) {
	srv := startServer(t, "checkout", "--fixture", "baseline", "--seed", "42")
	if code, _ := send(t, http.MethodGet, srv.URL()+"/__wraith/ready", ""); code != http.StatusOK {
		t.Errorf("ready: want 200, have %d", code)
	}
	code, body := send(t, http.MethodGet, srv.URL()+"/__wraith/info", "")
	var info struct {
		Twin     string
		Digest   string
		Routes   int
		Settings struct {
			Fixture string
			Seed    int
		}
	}
	json.Unmarshal([]byte(body), &info)
	if code != http.StatusOK || info.Twin != "checkout" || !strings.HasPrefix(info.Digest, "sha256:") || info.Routes < 20 || info.Settings.Fixture != "baseline" || info.Settings.Seed != 42 {
		t.Errorf("info: %d %s", code, body)
	}
	if code, body := send(t, http.MethodGet, srv.URL()+"/__wraith/nope", ""); code != http.StatusNotFound || !strings.Contains(body, "control-not-found") {
		t.Errorf("unknown control path: want 404 control-not-found, have %d %s", code, body)
	}
}
