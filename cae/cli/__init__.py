"""The command line: ``cae`` (or ``python -m cae``) ``learn``, ``label`` and ``info``.

::

    cae learn data.csv --out model.npz [--algorithm CAE] [--features x,y] [--scale minmax]
    cae label data.csv --model model.npz --out labels.csv [--dask tcp://scheduler:8786]
    cae info model.npz

A file of any size is read in chunks (:class:`cae.data.csvstream.CSVStream`: the same checks as the app's
*Your data*), ``.csv``, ``.tsv``, gzip-compressed or from standard input (``-``); a terminal shows a progress
line with the rows per second and the time left. Bad input is refused with the file, the line and what to
do, and exit code 2; Ctrl-C (exit code 130) leaves the previous output file as it was, never half a file.
``learn`` writes the model file the app and :func:`cae.load_model` read; ``label`` writes ``line,cluster``
for every row it could label (``line``: the row's line in the file, the header being line 1).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

__all__ = ["main", "entry", "parser"]

#: exit codes: bad input or arguments, and an interrupted run
EXIT_BAD_INPUT, EXIT_INTERRUPTED = 2, 130
_DELIMITERS = {",": ",", ";": ";", "tab": "\t", "\\t": "\t", "|": "|"}


def _reading(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("reading the CSV (detected when not given)")
    g.add_argument("--delimiter", choices=sorted(_DELIMITERS), help="the field delimiter")
    g.add_argument("--decimal", choices=[".", ","], help="the decimal separator")
    g.add_argument("--header", choices=["yes", "no"], help="whether the first row names the columns")
    g.add_argument(
        "--encoding", help="the file's encoding, e.g. latin-1 (default: UTF-8, UTF-16 with a BOM, else Latin-1)"
    )
    g.add_argument(
        "--unparsable",
        choices=["error", "missing"],
        default="error",
        help="a feature cell that is not a number: stop there, naming its line (default), or read it as missing "
        "and drop its row (counted)",
    )
    g.add_argument("--features", help="comma-separated feature columns (default: every numeric column)")


def parser() -> argparse.ArgumentParser:
    from ..registry import ALGORITHMS

    ap = argparse.ArgumentParser(
        prog="cae",
        description="Cluster a CSV of any size with CAE (or another algorithm of this package), streaming it in "
        "chunks: learn a model, label the rows with it, show what a model file holds.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "learn", help="learn a model from a CSV", description="Learn a model from a CSV, read in chunks."
    )
    p.add_argument("file", help="a CSV (.csv, .tsv, .gz) or - for standard input")
    p.add_argument("--out", required=True, help="the model file to write (replaced only when complete)")
    p.add_argument("--algorithm", default="CAE", choices=list(ALGORITHMS), help="default: CAE (parameter-free)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a parameter (repeatable)")
    p.add_argument("--label", help="a column to leave out of the default features (a class label)")
    p.add_argument(
        "--scale",
        choices=["none", "minmax", "zscore"],
        default="none",
        help="scale the features (default none, as the paper); min-max or z-score first read the whole file "
        "once for the ranges, unless --range gives them",
    )
    p.add_argument("--range", help="min-max ranges without a first pass: LO:HI for every feature, or LO:HI,LO:HI,...")
    g = p.add_argument_group(
        "a long file (CAE and CAEA, more than 50,000 rows)",
        "On a long stream with noise, CAE's nodes on the noise can link clusters: more rows, fewer clusters. "
        "While learning every row, cae learn keeps a uniform sample of the rows, learns it too, and warns when "
        "the network of every row joined clusters that the samples keep apart (docs/long-streams.md).",
    )
    g.add_argument(
        "--sampled",
        action="store_true",
        help="write the samples' network instead: CAE learned on --samples disjoint uniform samples of "
        "--sample-rows rows (each in file order), the one the others agree with most; every row is still read, "
        "and the network of every row is printed beside it",
    )
    g.add_argument("--samples", type=_at_least(2), default=5, help="samples learned (default 5)")
    g.add_argument("--sample-rows", type=_at_least(1000), default=20_000, help="rows per sample (default 20,000)")
    g.add_argument("--sample-seed", type=_at_least(0), default=0, help="which rows the samples take (default 0)")
    _reading(p)
    p = sub.add_parser(
        "label", help="label every row of a CSV with a model", description="Label every row of a CSV with a model."
    )
    p.add_argument("file", help="a CSV (.csv, .tsv, .gz) or - for standard input")
    p.add_argument("--model", required=True, help="a model file (from cae learn, the app or model.save)")
    p.add_argument("--out", required=True, help="the labels CSV to write: line,cluster")
    p.add_argument("--dask", metavar="ADDRESS", help="label on a dask cluster (its scheduler's address)")
    p.add_argument("--blocksize", default="64MB", help="--dask: the bytes of the file per task (default 64MB)")
    _reading(p)
    p = sub.add_parser("info", help="what a model file holds", description="Show what a model file holds.")
    p.add_argument("model", help="a model file")
    return ap


def _at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"give at least {low:,}, not {value:,}")
        return value

    return parse


def entry() -> None:
    """The ``cae`` command and ``python -m cae``: :func:`main`, then the process ends at once with its code.

    No interpreter teardown: a read-ahead thread may be blocked reading standard input when Ctrl-C comes, and
    Python's teardown would then wait for it or abort; everything the commands write is flushed and closed
    before :func:`main` returns.
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, 2 for bad input, 130 when interrupted)."""
    from .._storage import ModelFileError
    from ..data.csvstream import CSVLoadError

    args = parser().parse_args(argv)
    run = {"learn": "learn", "label": "label", "info": "info"}[args.command]
    try:
        module = __import__(f"cae.cli.{run}", fromlist=["run"])
        return int(module.run(args))
    except KeyboardInterrupt:
        out = getattr(args, "out", None)
        print(f"\ncae {args.command}: interrupted" + (f"; {out} is as it was" if out else ""), file=sys.stderr)
        return EXIT_INTERRUPTED
    except (CSVLoadError, ModelFileError, UsageError) as exc:
        print(f"cae {args.command}: {_where(args, exc)}{exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # a folder that is not there, a full disk, no permission
        print(f"cae {args.command}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


class UsageError(ValueError):
    """Arguments that do not fit together or do not fit the file; the message says what to give."""


def _where(args: argparse.Namespace, exc: Exception) -> str:
    """``FILE: `` (and ``line N: `` when the message does not say it) in front of a message about a file."""
    from .._storage import ModelFileError

    if isinstance(exc, ModelFileError):
        return f"{getattr(args, 'model', '')}: "
    if isinstance(exc, UsageError):
        return ""
    line = getattr(exc, "line", None)
    name = "standard input" if args.file == "-" else args.file
    return f"{name}: " + (f"line {line}: " if line and not str(exc).startswith("line ") else "")


def delimiter(value: str | None) -> str | None:
    return None if value is None else _DELIMITERS[value]


def stream_options(args: argparse.Namespace) -> dict[str, object]:
    """CSVStream's keyword arguments from the reading options (no size or row cap)."""
    from ..data.csvstream import UNLIMITED

    return dict(
        delimiter=delimiter(args.delimiter),
        decimal=args.decimal,
        header=None if args.header is None else args.header == "yes",
        encoding=args.encoding,
        limits=UNLIMITED,
    )


def feature_list(value: str | None) -> list[str] | None:
    return None if value is None else [f.strip() for f in value.split(",") if f.strip()]
