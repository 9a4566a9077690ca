package server

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/webhook"
)

// newDeliverer makes the deliverer of the webhooks d's behaviour queues,
// signed as d signs (when it does), journaled in store's sessions.
func newDeliverer(cfg Config, d dialect.Dialect, store *session.Store, now func() time.Time, log hclog.Logger) *webhook.Deliverer {
	signer, _ := d.(dialect.Signer)
	return webhook.New(webhook.Options{
		Signer:  signer,
		Journal: store,
		Allow:   cfg.WebhookAllow,
		Now:     now,
		Logger:  log.Named("webhook"),
	})
}
