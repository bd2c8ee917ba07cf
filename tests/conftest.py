"""Shared fixtures: rule and policy tests run on both engines.

The suite runs on parallel workers by default (pytest-xdist, one per core: ``-n auto``,
with ``--dist worksteal``);
``-n 0`` or ``-p no:xdist`` runs it in one process, and so does ``--pdb``.

The default run leaves out the tests marked ``slow`` (the long sweeps and builds); ``-m slow``
runs only them (CI runs both), ``--slow`` runs everything, and any other ``-m`` expression
chooses for itself.
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


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="run the tests marked slow too (the default run leaves them out)")


def pytest_collection_modifyitems(config, items):
    """Deselect the slow tests unless --slow or a -m expression is given."""
    if config.getoption("slow") or config.getoption("markexpr"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.fixture(params=["reference", "c"])
def engine(request):
    """The engine under test: the reference engine and the C engine, in turn."""
    return request.param
