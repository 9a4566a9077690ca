package server

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestMeaninglessClockRefused: a base epoch for a real clock is refused,
// naming the field or flag, instead of being dropped.
func TestMeaninglessClockRefused(t *testing.T) {
	_, err := openWith(t, nil, nil, "--clock", "real", "--clock-epoch", "1700000000")
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--clock-epoch 1700000000") {
		t.Errorf("--clock real --clock-epoch: want a usage error naming --clock-epoch, have %v", err)
	}
	for _, mode := range []string{"real", "fixed"} {
		_, err := openWith(t, nil, nil, "--clock", mode, "--clock-step", "2s")
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--clock-step 2s: only a deterministic clock steps") {
			t.Errorf("--clock %s --clock-step 2s: want a usage error naming --clock-step, have %v", mode, err)
		}
	}
	if srv, err := openWith(t, nil, nil, "--clock", "deterministic", "--clock-step", "2s"); err != nil {
		t.Errorf("--clock deterministic --clock-step 2s: %v", err)
	} else {
		srv.ln.Close()
	}
	srv, err := openWith(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	serveWith(t, srv)
	for _, field := range []string{"base_epoch", "base_epoch_secs"} {
		code, body := post(t, srv.URL()+"/__wraith/session", `{"session":"s","clock":{"mode":"real","`+field+`":1700000000}}`)
		if code != http.StatusBadRequest || !strings.Contains(body, `"invalid-clock"`) || !strings.Contains(body, `"clock.`+field+`"`) {
			t.Errorf("real clock with %s: want 400 invalid-clock naming clock.%s, have %d %s", field, field, code, body)
		}
	}
	if code, body := post(t, srv.URL()+"/__wraith/session", `{"session":"s","clock":{"mode":"real"}}`); code != http.StatusCreated {
		t.Errorf("real clock without an epoch: want 201, have %d %s", code, body)
	}
}
