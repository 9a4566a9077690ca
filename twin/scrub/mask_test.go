package scrub

import "testing"

func TestMaskDecoded(t *testing.T) {
	const m = "[redacted]"
	for _, tc := range []struct{ in, want string }{
		{"plain 4242424242424242 end", "plain 0000000000000000 end"},
		{"pct 4242%204242%204242%204242 end", "pct [redacted] end"},
		{"twice 4242%25204242%25204242%25204242 end", "twice [redacted] end"},
		{"entity 4242&#32;4242&#32;4242&#32;4242.", "entity [redacted]."},
		{"key sk_live&#95;51HxYzAbCdEfGhIjKlMnOpQr end", "key [redacted] end"},
		{"no card 1234%205678 and 100%25 sure", "no card 1234%205678 and 100%25 sure"},
		{"not a card 4242%204242%204242%204241", "not a card 4242%204242%204242%204241"},
	} {
		if have := MaskDecoded(tc.in, m); have != tc.want {
			t.Errorf("MaskDecoded(%q):\nwant %q\nhave %q", tc.in, tc.want, have)
		}
	}
}
