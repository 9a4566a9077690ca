package manifest

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestWebhookAllowFlag: webhook_allow, from [defaults] or the twin's own
// table, reaches wraith-twin as one --webhook-allow flag; what is no host
// is a problem with its file and key.
func TestWebhookAllowFlag(t *testing.T) {
	src := "[defaults]\nwebhook_allow = [\"hooks.internal\"]\n\n[[twins]]\nname = \"a\"\n\n[[twins]]\nname = \"b\"\nwebhook_allow = [\"hooks.internal\", \"10.0.0.7\"]\n"
	p, err := Parse("/x/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"--webhook-allow=hooks.internal"}, {"--webhook-allow=hooks.internal,10.0.0.7"}} {
		if have := p.Twins[i].Flags(); !reflect.DeepEqual(have, want) {
			t.Errorf("twins[%d]: want %q, have %q", i, want, have)
		}
	}
	for _, bad := range []string{`"hooks.internal"`, `["http://hooks.internal"]`, `["hooks.internal:8080"]`, `[""]`, `[1]`} {
		_, err := Parse("/x/wraith-project.toml", []byte("[[twins]]\nname = \"a\"\nwebhook_allow = "+bad+"\n"))
		var merr *Error
		if !errors.As(err, &merr) || !strings.Contains(err.Error(), "webhook_allow") {
			t.Errorf("webhook_allow = %s: want a problem naming webhook_allow, have %v", bad, err)
		}
	}
}
