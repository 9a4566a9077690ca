"""A pytest plugin that gives each test of stripe-python's suite a Wraith
session of its own, so that no test sees what another did: a stateful
twin would otherwise carry one test's deletes and updates into the next,
which the suite, written for the stateless stripe-mock, does not expect.

Around each test's call (after its fixtures, the suite's setup_stripe
among them, have set stripe.api_base) the API base gets the
/__s/{session}/ prefix, which the twin reads as the session's name. The
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
    name = "py-%d" % next(_numbers)
    item.user_properties.append(("wraith_session", name))
    base = stripe.api_base
    stripe.api_base = base.rstrip("/") + "/__s/" + name
    try:
        yield
    finally:
        stripe.api_base = base
