"""``python -m cae.data``: fetch and check the paper's datasets, or rewrite ``sample_data/``.

::

    python -m cae.data fetch [--to DIR] [--names iris,letter] [--from DIR] [--force]
    python -m cae.data check [DIR] [--names iris,pima]   # exits 1 when any is missing or different
    python -m cae.data sample_data [FOLDER]
"""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    from .fetch import AUTHORS_2D, PAPER_DATASETS

    stems = ", ".join([*PAPER_DATASETS, AUTHORS_2D.stem])
    ap = argparse.ArgumentParser(
        prog="python -m cae.data", description="Fetch and check the paper's datasets, or rewrite sample_data/."
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser(
        "fetch",
        help="download, convert and check the paper's 12 datasets and the authors' 2-D data",
        description="Download the paper's 12 real-world datasets (OpenML, scikit-learn's Iris, Roweis' "
        "Binalpha) and the authors' 2-D file, convert them to the layout the experiments read, check them "
        "against the paper's table and this project's copies, and write them to DIR (default: the per-user "
        "data folder, where the experiments look).",
    )
    p.add_argument(
        "--to", default=None, metavar="DIR", help="where to write (default: %(default)s → the per-user folder)"
    )
    p.add_argument("--names", default=None, help=f"comma-separated stems among {stems} (default: all)")
    p.add_argument(
        "--from",
        dest="from_folder",
        action="append",
        default=None,
        metavar="DIR",
        help="take the files from a local folder (CSVs in this layout) instead of the network; repeatable",
    )
    p.add_argument("--force", action="store_true", help="fetch again even where a checked file is there")
    p.add_argument("--timeout", type=float, default=60, help="seconds to wait for a server (default 60)")
    p = sub.add_parser(
        "check",
        help="check a folder of the paper's datasets against the paper's table",
        description="Check the paper's 12 datasets and the authors' 2-D file in DIR against the paper's table and "
        "this project's copies; exits 1 when any is missing or different (give --names to check only some).",
    )
    p.add_argument("folder", nargs="?", default=None, help="default: the per-user data folder")
    p.add_argument("--names", default=None, help=f"comma-separated stems among {stems} (default: all)")
    p = sub.add_parser("sample_data", help="rewrite the files of sample_data/")
    p.add_argument("folder", nargs="?", default="sample_data")
    return ap


def check_summary(checks: dict, folder: object, names: str | None = None, to: str | None = None) -> str:
    """The last line of ``check``: how many are as the paper has them, which are missing or wrong, and what to do
    (``fetch`` keeps the files that are already as the paper has them, so it names the datasets only when a few
    are wanted; ``to``: the folder given to ``check``, where ``fetch`` should write)."""
    missing = [s for s, c in checks.items() if not c.ok and c.summary.endswith(": missing")]
    wrong = [s for s, c in checks.items() if not c.ok and s not in missing]
    good = len(checks) - len(missing) - len(wrong)
    if not missing and not wrong:
        return f"All {len(checks)} dataset(s) checked are as the paper has them in {folder}."
    text = f"{good} of {len(checks)} datasets as the paper has them in {folder}"
    if missing:
        text += f"; missing: {', '.join(missing)}"
    if wrong:
        text += f"; not as the paper has them: {', '.join(wrong)}"
    todo = missing + wrong
    fetch = "python -m cae.data fetch" + (f" --names {','.join(todo)}" if len(todo) <= 3 else "")
    fetch += f" --to {to}" if to else ""
    text += f". Run `{fetch}` to get them"
    if not names:
        text += " (`python -m cae.data check --names iris,…` checks only some)"
    return text + "."


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    if a.cmd == "sample_data":
        from .builtin import write_sample_data

        write_sample_data(a.folder)
        return 0
    from .fetch import check_folder, default_folder, fetch

    if a.cmd == "check":
        folder = a.folder or default_folder()
        try:
            checks = check_folder(folder, a.names)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
        for stem, c in checks.items():
            print(("✓ " if c.ok else "✗ ") + f"{stem:<11s} {c.summary}")
        print(check_summary(checks, folder, a.names, a.folder))
        return 0 if all(c.ok for c in checks.values()) else 1
    try:
        outcomes = fetch(a.names, to=a.to, force=a.force, from_folder=a.from_folder, timeout=a.timeout)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    except OSError as exc:  # the folder (--to, or the one CAE_EXPLORER_DATA names) cannot be made or written
        raise SystemExit(f"cannot write the datasets to {a.to or default_folder()}: {exc.strerror or exc}") from None
    failed = [o for o in outcomes if o.status == "failed"]
    folder = a.to or default_folder()
    print(f"{len(outcomes) - len(failed)} of {len(outcomes)} datasets in {folder}")
    if failed:
        kinds = {o.kind for o in failed}
        if "no network" in kinds:
            print(
                "Some sources could not be reached (no network?). Run the command again where the network "
                "reaches them, or give --from DIR with a local copy of the files.",
                file=sys.stderr,
            )
        if "moved" in kinds:
            print("A source has moved: please report it (the message above names the URL).", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
