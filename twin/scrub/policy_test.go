package scrub

import (
	"slices"
	"strings"
	"testing"
)

func TestDefaultFields(t *testing.T) {
	fields := DefaultFields()
	for _, want := range []string{"name", "email", "phone", "login", "address", "line1", "postal_code"} {
		if !slices.Contains(fields, want) {
			t.Errorf("DefaultFields: want %q, have %v", want, fields)
		}
	}
	for _, absent := range []string{"state", "country", "id", "description"} {
		if slices.Contains(fields, absent) {
			t.Errorf("DefaultFields: want no %q, have %v", absent, fields)
		}
	}
	fields[0] = "changed"
	if have := DefaultFields()[0]; have != "name" {
		t.Errorf("DefaultFields after caller edit: want a fresh slice, have first %q", have)
	}
}

func TestIsPII(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		name   string
		policy Policy
		field  string
		want   bool
	}{
		{"listed", Policy{}, "email", true},
		{"upper case", Policy{}, "Email", true},
		{"all caps", Policy{}, "POSTAL_CODE", true},
		{"suffix", Policy{}, "billing_email", true},
		{"suffix of suffix", Policy{}, "billing_address_line1", true},
		{"suffix upper", Policy{}, "Customer_Name", true},
		{"role prefix", Policy{}, "receipt_email", true},
		{"display_name is caught by the suffix rule", Policy{}, "display_name", true},
		{"substring is not enough", Policy{}, "filename", false},
		{"prefix is not enough", Policy{}, "email_verified", false},
		{"zip inside gzip", Policy{}, "gzip", false},
		{"state is a status", Policy{}, "state", false},
		{"country", Policy{}, "country", false},
		{"id", Policy{}, "id", false},
		{"empty", Policy{}, "", false},
		{"underscore only", Policy{}, "_", false},
		{"leading underscore", Policy{}, "_email", true},
		{"long miss", Policy{}, long, false},
		{"long suffix hit", Policy{}, long + "_email", true},
		{"long without underscore", Policy{}, long + "email", false},
		{"verbatim", Policy{Verbatim: []string{"name"}}, "name", false},
		{"verbatim case", Policy{Verbatim: []string{"Name"}}, "NAME", false},
		{"verbatim is exact", Policy{Verbatim: []string{"name"}}, "customer_name", true},
		{"custom fields replace defaults", Policy{Fields: []string{"nickname"}}, "email", false},
		{"custom field", Policy{Fields: []string{"NickName"}}, "nickname", true},
		{"custom suffix", Policy{Fields: []string{"nickname"}}, "user_nickname", true},
		{"custom long field", Policy{Fields: []string{long}}, strings.ToUpper(long), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New([]byte(testKey), tc.policy)
			if have := s.IsPII(tc.field); have != tc.want {
				t.Errorf("IsPII(%.40q): want %v, have %v", tc.field, tc.want, have)
			}
		})
	}
}

func TestIsPIIAllocs(t *testing.T) {
	s := New([]byte(testKey), Policy{Verbatim: []string{"display_name"}})
	for _, field := range []string{"email", "Billing_Email", "created", "Invoice_Settings", "display_name", strings.Repeat("Ab_", 40)} {
		t.Run(field, func(t *testing.T) {
			if have := testing.AllocsPerRun(100, func() { s.IsPII(field) }); have != 0 {
				t.Errorf("IsPII(%q) allocations: want 0, have %v", field, have)
			}
		})
	}
}
