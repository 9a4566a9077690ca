package server

import (
	"net"
	"net/netip"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/webhook"
)

// newDeliverer makes the deliverer of the webhooks d's behaviour queues,
// signed as d signs (when it does), journaled in store's sessions.
// own is what it refuses as the twin's own address, which Open knows
// once it has bound its listener (before serving, so before any
// delivery).
func newDeliverer(cfg Config, d dialect.Dialect, store *session.Store, now func() time.Time, log hclog.Logger, own *ownAddr) *webhook.Deliverer {
	signer, _ := d.(dialect.Signer)
	return webhook.New(webhook.Options{
		Signer:  signer,
		Journal: store,
		Allow:   cfg.WebhookAllow,
		Own:     own.is,
		Now:     now,
		Logger:  log.Named("webhook"),
	})
}

// ownAddr is the addresses the twin listens on (two under --compat
// stripe-mock).
type ownAddr struct{ bound []netip.AddrPort }

func (o *ownAddr) add(a net.Addr) {
	if t, ok := a.(*net.TCPAddr); ok {
		o.bound = append(o.bound, t.AddrPort())
	}
}

// is reports whether ap reaches one of the twin's listeners: its port on
// its address, on any loopback address, or on any address when it listens
// on all of them.
func (o *ownAddr) is(ap netip.AddrPort) bool {
	a := ap.Addr().Unmap()
	for _, b := range o.bound {
		if ap.Port() == b.Port() && (a == b.Addr().Unmap() || a.IsLoopback() || b.Addr().IsUnspecified()) {
			return true
		}
	}
	return false
}
