"""Which extra a part of the course needs, said in one line where it is missing.

`pip install emqsim` is the engine and the command line on the embedded fakeredis; the
notebooks, the presenter pages and the site each need an extra (pyproject.toml). A part that
needs one asks `need` first, so a reader without it is told which extra to install, not shown
an ImportError from deep inside an import. Like pip's own "extras" (PEP 508): one name each.
"""

from __future__ import annotations

from importlib.util import find_spec

#: each extra -> the modules the parts that need it import (checked without importing them)
MODULES = {
    "lab": ("matplotlib", "ipywidgets", "IPython"),
    "present": ("voila",),
    "site": ("sphinx", "myst_nb", "sphinx_book_theme", "nbformat"),
}


class MissingExtra(ImportError):
    """A part of the course was asked for without the extra it needs installed."""


def missing(extra: str) -> list[str]:
    """The modules of `extra` this environment cannot import."""
    return [m for m in MODULES[extra] if find_spec(m) is None]


def need(extra: str, what: str) -> None:
    """Raise MissingExtra, naming `what`, the extra and the pip command, if `extra` is missing."""
    gone = missing(extra)
    if gone:
        raise MissingExtra(f"{what} needs emqsim's [{extra}] extra ({', '.join(gone)} not installed): "
                           f"pip install 'emqsim[{extra}]'")
