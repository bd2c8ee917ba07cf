"""Reading the small files a user names (traces, manifests, TOML) with a bound on what is
read, and naming the file a failed write was writing.

A file name may point at anything: a device such as /dev/zero or a FIFO never ends,
and a huge file would be read whole before it is parsed.  `read_capped` refuses what
is not a regular file and reads at most `limit` bytes, in one line each.

A full disk fails a `write` or an `fsync`, whose OSError names no file; `writing(path)`
puts the file's name on it, so the one line it becomes says which file was not written.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager


class FileLimitError(ValueError):
    """A file that is not a regular file, or larger than the bound on what is read."""


def _size_text(n: int) -> str:
    return f"{n // 2**20} MiB" if n % 2**20 == 0 else f"{n:,} bytes"


def read_capped(path_or_file, limit: int) -> bytes:
    """The bytes of a regular file (a path) or of an open binary or text stream, at most
    `limit` of them; FileLimitError otherwise.  OSError as `open` raises it."""
    if hasattr(path_or_file, "read"):  # a stream (stdin): a pipe is fine, but bounded
        data = path_or_file.read(limit + 1)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
    else:
        mode = os.stat(path_or_file).st_mode  # follows a symbolic link
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise FileLimitError(f"{kind} (a device, FIFO or socket is never read)"
                                 if kind != "a directory" else kind)
        with open(path_or_file, "rb") as f:
            data = f.read(limit + 1)
    if len(data) > limit:
        raise FileLimitError(f"larger than {_size_text(limit)}, the most read")
    return data


TOML_MAX_BYTES = 2**20  # a --config or deck file: a few lines


def read_toml(path) -> dict:
    """A TOML file (--config, --deck), bounded as `read_capped`; a UTF-8 byte order mark
    at its start (some Windows editors write one) is skipped.  ValueError (TOMLDecodeError,
    UnicodeDecodeError, FileLimitError) or OSError otherwise."""
    import tomllib

    data = read_capped(path, TOML_MAX_BYTES)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
    return tomllib.loads(text)


@contextmanager
def writing(path):
    """Any OSError raised inside the block names `path` (`filename`): the error of a write
    or an fsync names no file, and that of a temporary file (path.tmp...) or a rename names
    one the user never asked for."""
    try:
        yield
    except OSError as exc:
        exc.filename, exc.filename2 = os.fspath(path), None
        raise
