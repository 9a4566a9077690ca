package main

// The versions the suites run at, pinned here and nowhere else: the
// Makefile's sdk-suites target runs this program, and RESULTS.md names
// them.
const (
	// stripeGoModule is stripe-go's module, whose own test suite runs.
	stripeGoModule = "github.com/stripe/stripe-go/v85@v85.0.0"
	// stripeMockModule is the stripe-mock both suites run against beside
	// Wraith, built from the module; the stripe twin is imported from the
	// description of this same release.
	stripeMockModule = "github.com/stripe/stripe-mock@v0.203.0"
	// stripeMockPackage is the command stripeMockModule builds.
	stripeMockPackage = "github.com/stripe/stripe-mock"
)

// debs are the Debian packages of stripe-python's suite: python3-stripe
// ships the suite itself under /usr/share/python3-stripe/tests.
var debs = []deb{
	{"python3-stripe", "5.0.0-1"},
	{"python3-pytest", "7.2.1-2"},
	{"python3-pytest-mock", "3.8.2-3"},
}

// pythonTests is where python3-stripe puts its tests, and python the
// interpreter Debian's packages are installed for.
const (
	pythonTests = "/usr/share/python3-stripe/tests"
	python      = "/usr/bin/python3"
)

type deb struct{ name, version string }
