"""``python -m cae.data sample_data [FOLDER]``: rewrite the files of ``sample_data/``."""

import sys

from .builtin import write_sample_data

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["sample_data"]:
        args = args[1:]
    write_sample_data(args[0] if args else "sample_data")
