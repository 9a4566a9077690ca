"""A pytest plugin that gives each test of stripe-python's suite a Wraith
session of its own, so that no test sees what another did: a stateful
twin would otherwise carry one test's deletes and updates into the next,
which the suite, written for the stateless stripe-mock, does not expect.

Around the call of each test that talks to the mock (after its fixtures, the suite's setup_stripe
among them, have set stripe.api_base) the API base gets the
/__s/{session}/ prefix, which the twin reads as the session's name; so
does the upload base when a test's fixture points it at the twin (the
file tests move the API base there and set the API base to None). The
name goes into the JUnit report as the property wraith_session, which the
runner (sdk/) reads to find the test's requests in the twin's log.

Loaded by the runner with -p pytest_wraith_session against Wraith only.
"""

import itertools

import pytest
import stripe

_numbers = itertools.count(1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    # The suite's own mark of a test that talks to the mock: the
    # request_mock fixture (its conftest skips those under --nomock).
    # The others stub the HTTP layer and check the URLs it was given,
    # which a prefix would change.
    if "request_mock" not in item.fixturenames:
        yield
        return
    name = "py-%d" % next(_numbers)
    item.user_properties.append(("wraith_session", name))
    bases = {attr: getattr(stripe, attr) for attr in ("api_base", "upload_api_base")}
    for attr, base in bases.items():
        if isinstance(base, str) and base.startswith("http://localhost:"):
            setattr(stripe, attr, base.rstrip("/") + "/__s/" + name)
    try:
        yield
    finally:
        for attr, base in bases.items():
            setattr(stripe, attr, base)
