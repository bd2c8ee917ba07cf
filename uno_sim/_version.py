"""The version of uno_sim, in a room below every other (the runner stamps it on the files
it writes; `uno_sim.__version__` is the same)."""

__version__ = "0.1.0"  # pyproject.toml's [project] version
