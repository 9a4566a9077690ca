package format

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// WriteManifest writes m as twin.toml: the format's one writer, the one
// an import and a new recording write with. Keys are in the order the types declare them,
// and a field tagged omitzero is left out when it is zero (see Manifest);
// the same Manifest always gives the same bytes, so an import's digest
// is a function of its inputs. Load reads the bytes back as m, given an
// m that Load could have produced (Errors.Extra holds no ErrorKeys name),
// fault profiles included.
func WriteManifest(w io.Writer, m *Manifest) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(newDocument(m)); err != nil {
		return fmt.Errorf("encode twin.toml: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write twin.toml: %w", err)
	}
	return nil
}

// document is Manifest's top level as WriteManifest lays it out. Two
// fields cannot be written from Manifest's own types: Errors, whose extra
// shapes Extra the decoder reads by hand (go-toml has no tag for a map
// beside a struct's fields), and RecordedAt, which imported twins have
// always carried as a quoted string (a *time.Time encodes so) where a
// time.Time encodes as a bare TOML date-time; both read back the same.
// Everything below the top level is Manifest's own types.
// TestDocumentMirrorsManifest keeps the two field lists equal.
type document struct {
	Format        int            `toml:"format"`
	Name          string         `toml:"name"`
	Provider      string         `toml:"provider,omitzero"`
	Dialect       string         `toml:"dialect,omitzero"`
	Upstream      string         `toml:"upstream,omitzero"`
	Hosts         []string       `toml:"hosts,omitzero"`
	Description   string         `toml:"description,omitzero"`
	RecordedAt    *time.Time     `toml:"recorded_at,omitzero"`
	PII           PII            `toml:"pii,omitzero"`
	Fixtures      Fixtures       `toml:"fixtures,omitzero"`
	Errors        any            `toml:"errors,omitzero"`
	Routes        []Route        `toml:"routes,omitzero"`
	Resources     []Resource     `toml:"resources,omitzero"`
	FaultProfiles []FaultProfile `toml:"fault_profiles,omitzero"`
}

func newDocument(m *Manifest) document {
	d := document{
		Format:        m.Format,
		Name:          m.Name,
		Provider:      m.Provider,
		Dialect:       m.Dialect,
		Upstream:      m.Upstream,
		Hosts:         m.Hosts,
		Description:   m.Description,
		PII:           m.PII,
		Fixtures:      m.Fixtures,
		Errors:        errorsTable(&m.Errors),
		Routes:        m.Routes,
		Resources:     m.Resources,
		FaultProfiles: m.FaultProfiles,
	}
	if !m.RecordedAt.IsZero() {
		t := m.RecordedAt
		d.RecordedAt = &t
	}
	return d
}

// errorsTable is [errors] as written: the fields in ErrorKeys order, or,
// when there are extra shapes, every shape by name (go-toml sorts a map's
// keys), so the bytes stay a function of the Manifest either way. These
// are the two layouts the importer has always written. No shape at all
// is nil, which omitzero leaves out: an empty [errors] header says
// nothing (a *Errors is never zero, so it would be written).
func errorsTable(e *Errors) any {
	if len(e.Extra) == 0 {
		for _, name := range ErrorKeys {
			if e.Named(name) != nil {
				return e
			}
		}
		return nil
	}
	all := make(map[string]*Answer, len(ErrorKeys)+len(e.Extra))
	for name, a := range e.Extra {
		all[name] = a
	}
	for _, name := range ErrorKeys {
		if a := e.Named(name); a != nil {
			all[name] = a
		}
	}
	return all
}
