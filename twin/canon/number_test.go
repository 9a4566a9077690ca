package canon

import (
	"errors"
	"testing"
)

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"0", true}, {"-12", true}, {"1.5", true}, {"1e308", true}, {"-1.7976931348623157e308", true},
		{"1e-400", true}, {"1E+2", true},
		{"", false}, {"-", false}, {"NaN", false}, {"Inf", false}, {"-Infinity", false}, {"+1", false},
		{"007", false}, {".5", false}, {"1.", false}, {"0x10", false}, {"1_000", false}, {"1e999", false},
		{"-1e309", false}, {"1 ", false},
	} {
		if have := Number(tc.in); have != tc.want {
			t.Errorf("Number(%q): want %v, have %v", tc.in, tc.want, have)
		}
	}
}

// TestParamsNumberRange: a JSON number no float64 holds is refused, naming
// its place as a form key would.
func TestParamsNumberRange(t *testing.T) {
	for _, tc := range []struct {
		body, param, text string
	}{
		{`{"amount":1e999}`, "amount", "1e999"},
		{`{"metadata":{"a":-1E400}}`, "metadata[a]", "-1E400"},
		{`{"items":[{"qty":1},{"qty":2e308}]}`, "items[1][qty]", "2e308"},
	} {
		_, err := Params("application/json", []byte(tc.body), "")
		var ne *NumberError
		if !errors.As(err, &ne) {
			t.Errorf("%s: want a NumberError, have %v", tc.body, err)
			continue
		}
		if ne.Param != tc.param || ne.Text != tc.text {
			t.Errorf("%s: want %s at %s, have %s at %s", tc.body, tc.text, tc.param, ne.Text, ne.Param)
		}
	}
	if _, err := Params("application/json", []byte(`{"a":1e-999,"b":123456789012345678901234567890}`), ""); err != nil {
		t.Errorf("underflow and long integers fit a float: %v", err)
	}
}
