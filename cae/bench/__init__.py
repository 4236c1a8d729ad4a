"""The benchmarks: ``python -m cae.bench …`` (:mod:`cae.bench.__main__` reads the command line). Speed targets live
here, never in the tests; the numbers they print go to docs/performance.md, docs/peers.md, docs/long-streams.md and
docs/classroom.md.

- :mod:`~cae.bench.speed` — ``python -m cae.bench``: every algorithm's speed and memory, against a plain winner
  search (``--algorithms``, ``--continual``, ``--frames``; ``--cold``: the first fit of a fresh process);
- :mod:`~cae.bench.peers` — ``--peers``: CAE beside River's and scikit-learn's streaming clusterers;
- :mod:`~cae.bench.big_csv` — ``--csv``: ``cae learn`` / ``cae label`` on 10 million rows against pandas;
- :mod:`~cae.bench.quality` — ``--csv-quality``: CAE's answer as the file grows, on all rows and on samples;
- :mod:`~cae.bench.play` — ``--playground``: Play's frames per second in a real browser;
- :mod:`~cae.bench.classroom` — ``--classroom N``: the live classroom under load (N students against the app's
  server, real Streamlit sessions over its websocket; ``--flood K``, ``--flood-churn K``, ``--proxy nginx``);
- :mod:`~cae.bench.static_files` — ``--static-files``: a class page's Streamlit files behind nginx, served from
  disk against proxied to the app processes.

Nothing else in the package imports them (``tests/unit/test_architecture.py``); they import the package, and the
classroom's benchmark starts its servers with :mod:`cae.classroom.deploy`.
"""
