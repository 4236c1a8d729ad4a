"""The speed benchmark's reference (``python -m cae.bench``): the plain full winner search that CAE's figures
are printed as ratios to finds the winners CAE's kernel finds, and the counts of what the bound skips add up.
Timings themselves are printed by the benchmark, never asserted."""

import numpy as np

from cae import CAE
from cae.bench import speed


def _grid(n, d, seed):
    rng = np.random.default_rng(seed)
    centres = rng.integers(0, 16, (8, d))
    return np.clip(centres[rng.integers(0, 8, n)] + rng.integers(-2, 3, (n, d)), 0, 15) / 15.0


def test_the_plain_search_finds_the_winners_cae_labels_with():
    """plain_search (every CIM with math.exp, no bound) gives, for every sample, the node CAE's predict
    labels it by (s1, first on ties) and a distinct runner-up, in 16-D on a grid full of ties."""
    X = _grid(1500, 16, 3)
    model = CAE().fit(X)
    out = np.zeros((len(X), 2), dtype=np.int64)
    speed.plain_search(X[:300], np.ascontiguousarray(model.nodes_), float(model.prediction_sigma()), out[:300])
    np.testing.assert_array_equal(model.node_labels_[out[:300, 0]], model.predict(X[:300]))
    assert np.all(out[:300, 0] != out[:300, 1]) and np.all(out[:300, 1] >= 0)


def test_the_search_counts_say_how_many_cims_the_bound_leaves():
    """The benchmark's shares: between none and all nodes skipped, at least one CIM per sample (two when
    learning), and on a 16-D grid the bound skips more than the distance bound alone."""
    X = _grid(1500, 16, 4)
    model = CAE().fit(X)
    shares = speed._search_shares(model, X[:200])
    assert shares is not None
    K = len(model.nodes_)
    for key, least in (("learn", 2), ("predict", 1)):
        assert least <= shares[f"{key}_exact"] <= K
        assert 0.0 <= shares[f"{key}_distance_skipped"] <= shares[f"{key}_skipped"] < 1.0


def test_interleaved_timing_keeps_each_functions_best():
    calls = []
    best = speed.interleaved_best([lambda: calls.append("a"), lambda: calls.append("b")], 3)
    assert calls == ["a", "b"] * 3 and len(best) == 2 and all(t >= 0 for t in best)


def test_bench_csv_writes_its_data_and_prints_the_ratios(tmp_path, capsys):
    """python -m cae.bench --csv on a small file: the four runs in fresh processes, their ratios and peak RSS,
    and the readers (the large-file numbers are in docs/performance.md, not in a timed test)."""
    import pandas as pd

    from cae.bench.big_csv import main as bench_csv
    from cae.bench.big_csv import write_data

    data = write_data(tmp_path / "d.csv", 3000)
    frame = pd.read_csv(data)
    assert list(frame.columns) == ["x", "y"] and len(frame) == 3000 and frame.to_numpy().max() <= 1.0
    bench_csv(["--file", str(data)])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| `cae ")]
    assert len(rows) == 3 and all(line.count("x |") == 2 for line in rows)  # wall and CPU ratios
    assert "cae learn --sampled" in out and " clusters; " in out  # the clusters of every model, not only nodes
    assert "this project: CSVStream + FeatureReader" in out and "load average at the start" in out


def test_the_algorithms_table_fits_every_registered_name():
    """``--algorithms``' name column is as wide as the longest registered name (a 15-character one included):
    every row's numbers sit under their header."""
    from cae.registry import ALGORITHMS

    names = [*ALGORITHMS, "Hypersphere ART"]
    width = speed.name_width(names)
    head = speed.algorithm_line(width, "algorithm", "workload")
    for name in names:
        row = speed.algorithm_line(width, name, "paper2d (20,000 x 2)", (3.25, 1.0, 0.065, 41, 6, 0.5))
        assert row.index("paper2d") == head.index("workload") and len(row) == len(head), (name, row, head)
        assert row[:width].rstrip() == name


def test_the_static_files_benchmark_compares_the_recipe_with_itself_minus_its_static_location(tmp_path):
    """``--static-files``' "before" is the recipe's template without its /static/ location, and nothing else; the
    files it loads are Streamlit's, Plotly's script among them."""
    from cae.bench.static_files import first_load_files, proxied_template
    from cae.classroom.deploy import TEMPLATE, streamlit_static

    before, now = proxied_template(tmp_path).read_text(), TEMPLATE.read_text()
    assert "location /static/" in now and "location /static/" not in before and "@@STATIC@@" not in before
    removed = now[now.index("        # Streamlit's own files") : now.index("        # nginx's own health")]
    assert before == now.replace(removed, "")
    files = first_load_files()
    assert files[-1].startswith("/static/js/PlotlyChart.") and any(f.endswith(".css") for f in files)
    assert all((streamlit_static() / f.removeprefix("/static/")).is_file() for f in files)
