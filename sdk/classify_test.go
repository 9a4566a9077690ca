package main

import (
	"strings"
	"testing"
	"time"
)

// Failure texts as the suites print them.
const (
	goRefused = `=== RUN   TestSubscriptionNew
[ERROR] Request error from Stripe (status 400): {"status":400,"message":"Received unknown parameter: items[0][plan]","param":"items[0][plan]","type":"invalid_request_error"}
    client_test.go:40: 
        	Error Trace:	client_test.go:40
        	Error:      	Expected nil, but got: &stripe.Error{HTTPStatusCode:400, Msg:"Received unknown parameter: items[0][plan]", Type:"invalid_request_error"}
--- FAIL: TestSubscriptionNew (0.00s)
`
	goMissing = `[ERROR] Request error from Stripe (status 404): {"code":"resource_missing","status":404,"message":"No such customer: 'cus_123'","param":"id","type":"invalid_request_error"}
        	Error:      	Expected nil, but got: &stripe.Error{Code:"resource_missing", HTTPStatusCode:404}
`
	goDotted = `[ERROR] Request error from Stripe (status 404): {"code":"resource_missing","status":404,"message":"No such terminal.reader: 'tmr_1'","param":"id","type":"invalid_request_error"}`
	goState  = `[ERROR] Request error from Stripe (status 400): {"code":"payment_intent_unexpected_state","status":400,"message":"This payment_intent (pi_123) has a status of canceled; you cannot confirm it.","type":"invalid_request_error"}
        	Error:      	Expected nil, but got: &stripe.Error{}
`
	goDecode = `        	Error:      	Expected nil, but got: &errors.errorString{s:"Couldn't deserialize JSON (response status: 200, body sample: '{\"days_until_due\":\"30\"}'): json: cannot unmarshal string into Go struct field Invoice.days_until_due of type int64"}
`
	goNil = `--- FAIL: TestChargeSearch (0.00s)
panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]
`
	goMiss  = `[ERROR] Request error from Stripe (status 501): {"status":501,"message":"no route of twin stripe matches GET /v1/foo","type":"wraith_miss"}`
	goEmpty = `        	Error:      	Should be true
        	Test:       	TestCustomerList
`
	pyBool     = "stripe.error.InvalidRequestError: Request req_1: Invalid boolean: True\n"
	pyNoSuch   = "stripe.error.InvalidRequestError: Request req_1: No such customer: 'cus_x'\n"
	pyType     = "AssertionError: assert False\n +  where False = isinstance(<Customer customer id=cus_1>, stripe.Charge)\n"
	pyIndex    = "IndexError: list index out of range\n    assert isinstance(resources.data, list)\n"
	pyOddities = "AssertionError: expected call not found.\n"
)

func TestClassify(t *testing.T) {
	at := func(ms int) time.Time { return time.Date(2026, 12, 2, 3, 0, 0, ms*int(time.Millisecond), time.UTC) }
	list := request{At: at(5), Method: "GET", Path: "/v1/customers", Route: "GET /v1/customers", Status: 200, Provenance: "handler"}
	del := request{At: at(1), Method: "DELETE", Path: "/v1/customers/cus_123", Route: "DELETE /v1/customers/{id}", Status: 200, Provenance: "handler"}
	delReader := request{At: at(1), Method: "DELETE", Path: "/v1/terminal/readers/tmr_1", Route: "DELETE /v1/terminal/readers/{id}", Status: 200}
	miss := request{At: at(5), Method: "GET", Path: "/v1/nowhere", Status: 501, Provenance: "miss"}
	for _, tc := range []struct {
		name          string
		outcome, text string
		reqs, earlier []request
		want          string
	}{
		{"unknown parameter", fail, goRefused, nil, nil, classParamRefused},
		{"invalid boolean", fail, pyBool, nil, nil, classParamRefused},
		{"decode error", fail, goDecode, nil, nil, classWrongType},
		{"isinstance", fail, pyType, nil, nil, classWrongType},
		{"nil dereference", fail, goNil, nil, nil, classFieldMissing},
		{"route miss in the text", fail, goMiss, nil, nil, classRouteMissing},
		{"route miss in the log", fail, goEmpty, []request{miss}, nil, classRouteMissing},
		{"deleted by another test", fail, goMissing, nil, []request{del}, classOtherTest},
		{"dotted object deleted by another test", fail, goDotted, nil, []request{delReader}, classOtherTest},
		{"list after another test deleted", fail, goEmpty, []request{list}, []request{del}, classOtherTest},
		{"not found, no other test", fail, goMissing, nil, nil, classWraithRight},
		{"not found in python", fail, pyNoSuch, nil, nil, classWraithRight},
		{"state machine", fail, goState, nil, nil, classWraithRight},
		{"empty list of a fresh session", fail, goEmpty, []request{list}, nil, classWraithRight},
		{"empty python list", fail, pyIndex, []request{list}, nil, classWraithRight},
		{"never ran", missing, "", nil, nil, classNotRun},
		{"something else", fail, pyOddities, nil, nil, classUnclassified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := classify(&testResult{Name: tc.name, Outcome: tc.outcome, Text: tc.text}, tc.reqs, tc.earlier)
			if want, have := tc.want, v.Class; want != have {
				t.Errorf("class: want %q, have %q (reason %q)", want, have, v.Reason)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{goRefused, `Request error from Stripe (status 400): {"status":400,"message":"Received unknown parameter: items[0][plan]"`},
		{goEmpty, "Should be true"},
		{"    x_test.go:9: \n        \tError:      \tReceived unexpected error:\n        \t            \tboom\n", "Received unexpected error: boom"},
		{goNil, "panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]"},
		{pyBool, "stripe.error.InvalidRequestError: Request req_1: Invalid boolean: True"},
		{strings.Repeat("error ", 100), strings.Repeat("error ", 40)[:240] + "…"},
	} {
		if have := firstLine(tc.text); !strings.HasPrefix(have, tc.want) {
			t.Errorf("firstLine(%.40q...): want a line starting %q, have %q", tc.text, tc.want, have)
		}
	}
}

// TestCompare: only tests that pass on stripe-mock count; a test absent
// from Wraith's run was not run; one that passes on Wraith alone is
// counted apart.
func TestCompare(t *testing.T) {
	mock, wraith := newSuiteRun(), newSuiteRun()
	for name, outcomes := range map[string][2]string{
		"a.TestBoth":       {pass, pass},
		"a.TestRefused":    {pass, fail},
		"a.TestGone":       {pass, ""},
		"a.TestMockFails":  {fail, fail},
		"a.TestWraithOnly": {fail, pass},
	} {
		mock.test(name, "a").Outcome = outcomes[0]
		if outcomes[1] != "" {
			w := wraith.test(name, "a")
			w.Outcome = outcomes[1]
			w.Text = goRefused
		}
	}
	var rep suiteReport
	compare(&rep, mock, wraith, func(*testResult) (reqs, earlier []request) { return nil, nil })
	if rep.Tests != 5 || rep.MockPassed != 3 || rep.WraithPassed != 2 || rep.BothPassed != 1 || rep.WraithOnly != 1 {
		t.Errorf("figures: want 5 tests, 3 on stripe-mock, 2 on Wraith, 1 on both, 1 on Wraith only; have %+v", rep)
	}
	classes := map[string]string{}
	for _, c := range rep.Classes {
		for _, f := range c.Tests {
			classes[f.Test] = c.Class
		}
	}
	want := map[string]string{"a.TestRefused": classParamRefused, "a.TestGone": classNotRun}
	if len(classes) != len(want) || classes["a.TestRefused"] != want["a.TestRefused"] || classes["a.TestGone"] != want["a.TestGone"] {
		t.Errorf("classes: want %v, have %v", want, classes)
	}
}

// TestReadGoEvents: subtests count, their parents do not; a test whose
// binary died under it has failed; tests are named after their package.
func TestReadGoEvents(t *testing.T) {
	const events = `{"Action":"run","Package":"m/v85/customer","Test":"TestA"}
{"Action":"pass","Package":"m/v85/customer","Test":"TestA"}
{"Action":"run","Package":"m/v85/customer","Test":"TestB"}
{"Action":"run","Package":"m/v85/customer","Test":"TestB/sub"}
{"Action":"pass","Package":"m/v85/customer","Test":"TestB/sub"}
{"Action":"pass","Package":"m/v85/customer","Test":"TestB"}
{"Action":"run","Package":"m/v85","Test":"TestC"}
{"Action":"output","Package":"m/v85","Test":"TestC","Output":"panic: boom\n"}
{"Action":"output","Package":"m/v85","Output":"FAIL\tm/v85\n"}
{"Action":"fail","Package":"m/v85"}
`
	run, err := readGoEvents(strings.NewReader(events), "m/v85")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"customer.TestA": pass, "customer.TestB/sub": pass, "root.TestC": fail}
	if len(run.Tests) != len(want) {
		t.Errorf("tests: want %v, have %d of them", want, len(run.Tests))
	}
	for name, outcome := range want {
		if tr := run.Tests[name]; tr == nil || tr.Outcome != outcome {
			t.Errorf("%s: want %s, have %+v", name, outcome, tr)
		}
	}
	if _, ok := run.Processes["root"]; !ok {
		t.Errorf("the failed process's output: want it kept under root, have %v", run.Processes)
	}
}

func TestReadJUnit(t *testing.T) {
	const doc = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.api_resources.test_customer.TestCustomer" name="test_is_listable"><properties><property name="wraith_session" value="py-7"/></properties></testcase>
<testcase classname="tests.api_resources.test_customer.TestCustomer" name="test_is_creatable"><failure message="stripe.error.InvalidRequestError: Invalid boolean: True">trace</failure></testcase>
<testcase classname="tests.test_util" name="test_skip"><skipped message="no"/></testcase>
</testsuite></testsuites>`
	run, err := readJUnit(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	listable := run.Tests["tests.api_resources.test_customer.TestCustomer::test_is_listable"]
	if listable == nil || listable.Outcome != pass || listable.Session != "py-7" || listable.Process != "tests.api_resources.test_customer" {
		t.Errorf("test_is_listable: want a pass in session py-7 of its module, have %+v", listable)
	}
	if c := run.Tests["tests.api_resources.test_customer.TestCustomer::test_is_creatable"]; c == nil || c.Outcome != fail || !strings.Contains(c.Text, "Invalid boolean") {
		t.Errorf("test_is_creatable: want a failure with its message, have %+v", c)
	}
	if s := run.Tests["tests.test_util::test_skip"]; s == nil || s.Outcome != skip {
		t.Errorf("test_skip: want skipped, have %+v", s)
	}
}

// TestKnownFailures: a failure read by hand gets its entry's class and
// reason before any rule, and every entry names a class and a reason.
func TestKnownFailures(t *testing.T) {
	name := "tests.api_resources.test_topup.TestTopup::test_is_creatable"
	v := classify(&testResult{Name: name, Outcome: fail, Text: "stripe.error.InvalidRequestError: Invalid string: statement descriptor; must be at most 15 characters\n"}, nil, nil)
	if v.Class != classWraithRight || !strings.Contains(v.Reason, "maxLength 15") {
		t.Errorf("want the entry's class and reason, have %+v", v)
	}
	for name, k := range known {
		if k.Class == "" || len(k.Reason) < 40 {
			t.Errorf("%s: want a class and a reason that says why, have %+v", name, k)
		}
	}
}
