"""Shared fixtures: rule and policy tests run on both engines.

The suite runs on parallel workers by default (pytest-xdist, one per core: ``-n auto``,
with ``--dist worksteal``);
``-n 0`` or ``-p no:xdist`` runs it in one process, and so does ``--pdb``.
"""

import pytest


@pytest.hookimpl(tryfirst=True)  # before xdist's own (registered earlier, so run later)
def pytest_cmdline_main(config):
    """``-n auto`` unless a worker count is given, xdist is disabled or a debugger is asked."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.getoption("numprocesses", None) is None and not config.getoption("usepdb", False):
        config.option.numprocesses = "auto"
        if config.getoption("dist", "no") == "no":  # idle workers take over queued tests
            config.option.dist = "worksteal"


@pytest.fixture(params=["reference", "c"])
def engine(request):
    """The engine under test: the reference engine and the C engine, in turn."""
    return request.param
