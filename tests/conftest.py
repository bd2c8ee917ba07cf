"""Shared fixtures: rule and policy tests run on both engines."""

import pytest


@pytest.fixture(params=["reference", "c"])
def engine(request):
    """The engine under test: the reference engine and the C engine, in turn."""
    return request.param
