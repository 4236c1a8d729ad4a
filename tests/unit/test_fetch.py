"""``python -m cae.data fetch``: the converters, the checks and the download path, on local files and a local
HTTP server; on ``../shared/datasets`` when it is there; against the real sources only where a network reaches them.

The OpenML path runs scikit-learn's real ``fetch_openml`` on OpenML's own recorded responses for Iris
(dataset 61), which scikit-learn ships with its tests, placed in the download cache: no network needed.
"""

import dataclasses
import hashlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE_HOWTO, ROOT, SHARED, paper_datasets_folder, shared_path

from cae import presets
from cae.data import fetch as F

IRIS_OPENML = ("Iris-setosa", "Iris-versicolor", "Iris-virginica")


# ------------------------------------------------------------------ helpers
@pytest.fixture
def server(tmp_path):
    """A real HTTP server on 127.0.0.1 serving ``tmp_path/www``; yields (folder, base URL)."""
    www = tmp_path / "www"
    www.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(www), **k)

        def log_message(self, *a):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield www, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def md5(data):
    return hashlib.md5(data).hexdigest()


def tiny_2d():
    """A small file in the authors' format (no header, x,y,class) and the spec it satisfies."""
    rng = np.random.default_rng(0)
    rows = [f"{x!r},{y!r},{c}" for c in range(3) for x, y in rng.random((4, 2)).tolist()]
    raw = "\n".join(rows).encode()
    ours = b"x0,x1,label\n" + raw
    return raw, ours


def spec_2d(urls, raw, ours):
    src = dataclasses.replace(F.AUTHORS_2D.source, urls=tuple(urls), md5=md5(raw))
    return dataclasses.replace(F.AUTHORS_2D, rows=12, classes=3, class_sizes=(4, 4, 4), md5=md5(ours), source=src)


# ------------------------------------------------------------------ the table
def test_the_table_is_the_papers():
    """Names, stems and sizes: the paper's Table of datasets (from its LaTeX source when ../shared is there)."""
    assert [d.name for d in F.PAPER_DATASETS.values()] == list(presets.DATASETS)
    assert [d.stem for d in F.PAPER_DATASETS.values()] == list(presets.DATASETS.values())
    for d in F.PAPER_DATASETS.values():
        assert len(d.class_sizes) == d.classes and sum(d.class_sizes) == d.rows
        assert len(d.class_names) == d.classes
        if isinstance(d.source, F.OpenMLSource):
            assert len(d.source.classes) == d.classes == len(set(d.source.classes))
    tex = SHARED / "paper" / "cae-paper.tex"
    if not tex.exists():
        pytest.skip(f"needs paper/cae-paper.tex (the sizes above were checked without it): {REFERENCE_HOWTO}")
    table = {}
    for line in tex.read_text().splitlines():
        parts = [p.strip().replace(",", "") for p in line.strip().rstrip("\\").split("&")]
        if len(parts) == 4 and parts[0] in presets.DATASETS and all(p.isdigit() for p in parts[1:]):
            table[parts[0]] = tuple(int(p) for p in parts[1:])
    assert table == {d.name: (d.rows, d.features, d.classes) for d in F.PAPER_DATASETS.values()}


def test_sources_md5_table_agrees_with_our_records():
    """The MD5s in ../shared/datasets/SOURCES.md are the ones the checks compare against."""
    text = shared_path("datasets", "SOURCES.md").read_text()
    for d in F.PAPER_DATASETS.values():
        if d.stem != "iris":  # SOURCES.md: iris.csv was regenerated from scikit-learn, no MD5 listed
            assert f"{d.md5}  {d.filename}" in text, d.stem


# ------------------------------------------------------------------ the layout and the checks
@pytest.mark.parametrize("stem", list(F.PAPER_DATASETS))
def test_the_writer_reproduces_our_files_byte_for_byte(stem, tmp_path):
    path = shared_path("datasets", f"{stem}.csv")
    X, y, _ = F.read_labelled_csv(path)
    F.write_labelled_csv(tmp_path / "out.csv", X, y)
    assert (tmp_path / "out.csv").read_bytes() == path.read_bytes()
    spec = F.PAPER_DATASETS[stem]
    assert F.rows_fingerprint(X, y) == spec.rows_sha256
    c = F.check_file(path, spec)
    assert c.ok and c.identity == "identical", c.summary


def test_check_folder_on_shared():
    folder, data = paper_datasets_folder()
    checks = F.check_folder(folder, list(F.PAPER_DATASETS))
    assert all(c.ok and c.identity == "identical" for c in checks.values())
    c = F.check_file(data / F.PAPER2D_FILE, F.AUTHORS_2D)
    assert c.ok and c.identity == "identical"


def _iris(tmp_path, X=None, y=None, name="iris.csv"):
    from sklearn.datasets import load_iris

    b = load_iris()
    p = tmp_path / name
    F.write_labelled_csv(p, b.data if X is None else X, b.target if y is None else y)
    return p, b


def test_check_file_says_what_is_wrong(tmp_path):
    spec = F.PAPER_DATASETS["iris"]
    p, b = _iris(tmp_path)
    assert F.check_file(p, spec).identity == "identical"  # sklearn's Iris is the paper's (and our file)
    order = np.random.default_rng(0).permutation(150)
    p, _ = _iris(tmp_path, b.data[order], b.target[order])
    c = F.check_file(p, spec)
    assert c.ok and c.identity == "same rows" and "another order" in c.summary
    X = b.data.copy()
    X[34, 3] = 0.1  # one of the UCI errata
    p, _ = _iris(tmp_path, X)
    c = F.check_file(p, spec)
    assert c.ok and c.identity == "different" and "differ" in c.summary
    # a wrong class mapping shows in the class sizes
    y = b.target.copy()
    y[:5] = 1
    p, _ = _iris(tmp_path, y=y)
    c = F.check_file(p, spec)
    assert not c.ok and c.problems == ["class sizes (45, 55, 50), this project has (50, 50, 50)"]
    p, _ = _iris(tmp_path, b.data[:, :3])
    assert F.check_file(p, spec).problems == ["3 features, the paper has 4"]
    p, _ = _iris(tmp_path, y=np.where(b.target == 2, 1, b.target))
    assert F.check_file(p, spec).problems == ["2 classes, the paper has 3"]
    p = tmp_path / "bad.csv"
    p.write_text("a,b,label\n1,2,0\n")
    assert "header" in F.check_file(p, spec).problems[0]
    p.write_text("f0,label\nx,0\n")
    assert F.check_file(p, spec).problems == ["the features are not all numbers"]
    p.write_text("f0,label\n1.0,a\n")
    assert F.check_file(p, spec).problems == ["the labels are not integers"]
    assert not F.check_file(tmp_path / "absent.csv", spec).ok


# ------------------------------------------------------------------ downloads (a real local HTTP server)
def test_download_tries_the_next_url_after_a_404_and_checks_the_md5(server, tmp_path):
    www, base = server
    (www / "f.bin").write_bytes(b"payload")
    dest = tmp_path / "got" / "f.bin"
    used = F.download([f"{base}/moved.bin", f"{base}/f.bin"], dest, md5=md5(b"payload"))
    assert used.endswith("/f.bin") and dest.read_bytes() == b"payload"
    with pytest.raises(F.FetchError) as e:
        F.download([f"{base}/f.bin"], tmp_path / "x.bin", md5=md5(b"something else"))
    assert e.value.kind == "checksum" and "checksum mismatch" in str(e.value)
    assert not (tmp_path / "x.bin").exists() and not list(tmp_path.glob(".x.bin*"))
    with pytest.raises(F.FetchError) as e:
        F.download([f"{base}/gone.bin"], tmp_path / "y.bin")
    assert e.value.kind == "moved" and "HTTP 404" in str(e.value)
    with pytest.raises(F.FetchError) as e:
        F.download([f"http://127.0.0.1:{closed_port()}/f.bin"], tmp_path / "z.bin", timeout=5)
    assert e.value.kind == "no network" and "cannot reach 127.0.0.1" in str(e.value) and "refused" in str(e.value)


def test_fetch_the_authors_file_from_a_server(server, tmp_path):
    """Moved first URL, then the file; checked by MD5, written under our header; a second fetch finds it."""
    www, base = server
    raw, ours = tiny_2d()
    (www / "2d.data").write_bytes(raw)
    spec = spec_2d([f"{base}/old/2d.data", f"{base}/2d.data"], raw, ours)
    out = tmp_path / "data"
    [o] = F.fetch(["paper2d"], to=out, datasets={"paper2d": spec}, log=None)
    assert o.status == "fetched" and o.identity == "identical", o.message
    assert F.authors_2d_path(out).read_bytes() == ours
    assert (out / "sources" / spec.source.filename).read_bytes() == raw
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["paper2d"]["md5"] == md5(ours) and manifest["paper2d"]["source"].startswith(base)
    (www / "2d.data").unlink()  # nothing is downloaded again
    [o] = F.fetch(["paper2d"], to=out, datasets={"paper2d": spec}, log=None)
    assert o.status == "present"


def test_fetch_refuses_a_file_whose_checksum_differs(server, tmp_path):
    www, base = server
    raw, ours = tiny_2d()
    (www / "2d.data").write_bytes(raw.replace(b"\n", b"\r\n"))  # altered in transit
    spec = spec_2d([f"{base}/2d.data"], raw, ours)
    [o] = F.fetch(["paper2d"], to=tmp_path, datasets={"paper2d": spec}, log=None)
    assert o.status == "failed" and o.kind == "checksum" and "checksum mismatch" in o.message
    assert not F.authors_2d_path(tmp_path).exists()


def test_fetch_without_a_network_says_so_and_does_not_retry_the_host(tmp_path):
    raw, ours = tiny_2d()
    url = f"http://127.0.0.1:{closed_port()}/2d.data"
    spec = spec_2d([url], raw, ours)
    other = dataclasses.replace(spec, stem="again")
    lines = []
    outcomes = F.fetch(["paper2d", "again"], to=tmp_path, datasets={"paper2d": spec, "again": other}, log=lines.append)
    assert [o.kind for o in outcomes] == ["no network", "no network"]
    assert "refused" in outcomes[0].message and outcomes[1].message.startswith("not tried: cannot reach 127.0.0.1")
    assert all("FAILED (no network)" in line for line in lines)


def test_fetch_does_not_keep_data_that_do_not_match_the_paper(server, tmp_path):
    www, base = server
    raw, ours = tiny_2d()
    (www / "2d.data").write_bytes(raw)
    spec = dataclasses.replace(spec_2d([f"{base}/2d.data"], raw, ours), rows=13, class_sizes=(5, 4, 4), md5="0" * 32)
    [o] = F.fetch(["paper2d"], to=tmp_path, datasets={"paper2d": spec}, log=None)
    assert o.status == "failed" and o.kind == "content" and "12 rows, the paper has 13" in o.message
    assert not F.authors_2d_path(tmp_path).exists() and not list(tmp_path.rglob("*.checking"))


def test_the_real_authors_file_through_a_server(server, tmp_path):
    """The authors' bytes (our copy without its header line) served, fetched and checked by the real MD5s."""
    ours = shared_path("data", F.PAPER2D_FILE).read_bytes()
    raw = ours.split(b"\n", 1)[1]
    assert md5(raw) == F.AUTHORS_2D.source.md5
    www, base = server
    (www / F.AUTHORS_2D.source.filename).write_bytes(raw)
    src = dataclasses.replace(F.AUTHORS_2D.source, urls=(f"{base}/{F.AUTHORS_2D.source.filename}",))
    [o] = F.fetch(
        ["paper2d"], to=tmp_path, datasets={"paper2d": dataclasses.replace(F.AUTHORS_2D, source=src)}, log=None
    )
    assert o.status == "fetched" and F.authors_2d_path(tmp_path).read_bytes() == ours


# ------------------------------------------------------------------ Binalpha (Roweis' MATLAB file)
def _roweis_mat(path, images):
    """A file in the layout of Roweis' binaryalphadigs.mat: ``dat`` a classes × images cell of 20 × 16 arrays."""
    from scipy.io import savemat

    C, K = len(images), len(images[0])
    dat = np.empty((C, K), dtype=object)
    for c in range(C):
        for k in range(K):
            dat[c, k] = images[c][k].astype(np.uint8)
    savemat(path, {"dat": dat, "classlabels": np.array([[str(c) for c in range(C)]], dtype=object)})


def test_binalpha_parser_on_a_small_file(tmp_path):
    rng = np.random.default_rng(1)
    images = [[(rng.random((20, 16)) < 0.3) for _ in range(3)] for _ in range(2)]
    _roweis_mat(tmp_path / "b.mat", images)
    X, y = F._parse_roweis_binalpha(tmp_path / "b.mat", None)
    assert X.shape == (6, 320) and y.tolist() == [0, 0, 0, 1, 1, 1]
    # feature j is pixel (j % 20, j // 20): column-major
    np.testing.assert_array_equal(X[4], images[1][1].astype(float).flatten(order="F"))
    assert X[4, 21] == images[1][1][1, 1]
    (tmp_path / "junk.mat").write_bytes(b"not a MATLAB file")
    with pytest.raises(F.FetchError) as e:
        F._parse_roweis_binalpha(tmp_path / "junk.mat", None)
    assert e.value.kind == "content"


def test_binalpha_through_a_server_gives_our_file(server, tmp_path):
    """Our Binalpha rebuilt in Roweis' layout, served, fetched: byte for byte our file."""
    X, y, _ = F.read_labelled_csv(shared_path("datasets", "binalpha.csv"))
    images = [[X[c * 39 + k].reshape(20, 16, order="F") for k in range(39)] for c in range(36)]
    www, base = server
    _roweis_mat(www / "binaryalphadigs.mat", images)
    spec = F.PAPER_DATASETS["binalpha"]
    spec = dataclasses.replace(spec, source=dataclasses.replace(spec.source, urls=(f"{base}/binaryalphadigs.mat",)))
    [o] = F.fetch(["binalpha"], to=tmp_path, datasets={"binalpha": spec}, log=None)
    assert o.status == "fetched" and o.identity == "identical", o.message


# ------------------------------------------------------------------ OpenML (scikit-learn's recorded responses)
OPENML_61 = {
    "api-v1-jd-61.json.gz": "api/v1/json/data/61.gz",
    "api-v1-jdf-61.json.gz": "api/v1/json/data/features/61.gz",
    "api-v1-jdq-61.json.gz": "api/v1/json/data/qualities/61.gz",
    "data-v1-dl-61.arff.gz": "data/v1/download/61/iris.arff.gz",
}


def openml_cache(sources):
    """Place OpenML's recorded answers for dataset 61 where fetch_openml's cache looks (under ``sources``)."""
    import sklearn

    rec = Path(sklearn.__file__).parent / "datasets" / "tests" / "data" / "openml" / "id_61"
    if not rec.is_dir():
        pytest.skip(f"scikit-learn's recorded OpenML responses are not installed ({rec})")
    for name, rel in OPENML_61.items():
        dest = sources / "openml" / "openml.org" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(rec / name, dest)
    return sources


def iris_from_openml(classes=IRIS_OPENML):
    return dataclasses.replace(F.PAPER_DATASETS["iris"], source=F.OpenMLSource(61, "iris", classes))


def test_openml_path_with_the_recorded_iris(tmp_path):
    """fetch_openml → our converter → the checks: OpenML's Iris has the paper's size, but not its values."""
    openml_cache(tmp_path / "sources")
    [o] = F.fetch(["iris"], to=tmp_path, datasets={"iris": iris_from_openml()}, log=None)
    assert o.status == "fetched" and o.identity == "different", o.message
    X, y, _ = F.read_labelled_csv(tmp_path / "iris.csv")
    from sklearn.datasets import load_iris

    differ = np.flatnonzero(np.any(X != load_iris().data, axis=1))
    assert differ.tolist() == [34, 37]  # the two UCI errata: why Iris comes from scikit-learn's copy
    assert (y == load_iris().target).all()
    manifest = json.loads((tmp_path / "MANIFEST.json").read_text())
    assert manifest["iris"]["source"] == "OpenML dataset 61 ('iris')"
    assert manifest["iris"]["classes"] == {"0": "setosa", "1": "versicolor", "2": "virginica"}


def test_openml_classes_that_changed_are_refused(tmp_path):
    openml_cache(tmp_path / "sources")
    spec = iris_from_openml(("setosa", "versicolor", "virginica"))
    [o] = F.fetch(["iris"], to=tmp_path, datasets={"iris": spec}, log=None)
    assert o.status == "failed" and o.kind == "content" and "the source has changed" in o.message
    # the mapping decides the labels: a swapped one fails on the class sizes only where they differ;
    # here (50 each) it is written, and its rows no longer equal ours
    spec = iris_from_openml(("Iris-versicolor", "Iris-setosa", "Iris-virginica"))
    [o] = F.fetch(["iris"], to=tmp_path, datasets={"iris": spec}, log=None, force=True)
    assert o.status == "fetched" and o.identity == "different"


def test_openml_unreachable(tmp_path):
    """An OpenML id not in the cache: fetch_openml goes to the network, which is not there (or refuses)."""
    spec = dataclasses.replace(F.PAPER_DATASETS["ionosphere"])
    if _reachable("www.openml.org"):
        pytest.skip("OpenML is reachable here: the no-network path is exercised by the local-server tests")
    [o] = F.fetch(["ionosphere"], to=tmp_path, datasets={"ionosphere": spec}, log=None, timeout=10)
    assert o.status == "failed" and o.kind == "no network" and "www.openml.org" in o.message


def test_the_bundled_iris_is_the_papers(tmp_path):
    lines = []
    [o] = F.fetch(["iris"], to=tmp_path, log=lines.append)
    assert o.status == "fetched" and o.identity == "identical" and o.bundled
    # nothing was downloaded: the line says where Iris comes from
    assert "Iris" in lines[0] and "bundled with scikit-learn" in lines[0] and "fetched" not in lines[0], lines


def test_an_explicit_data_folder_wins_even_when_it_cannot_be_written(tmp_path, monkeypatch):
    """``CAE_EXPLORER_DATA`` is where fetch writes: a folder it cannot write is an error, never another folder."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("CAE_EXPLORER_DATA", str(blocker / "datasets"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with pytest.raises(OSError):
        F.fetch(["iris"], log=None)
    assert not (tmp_path / "xdg").exists()
    env = dict(os.environ, CAE_EXPLORER_DATA=str(blocker / "datasets"), XDG_DATA_HOME=str(tmp_path / "xdg"))
    r = _run("fetch", "--names", "iris", env=env)  # the command says so, in words
    assert r.returncode != 0 and f"cannot write the datasets to {blocker / 'datasets'}" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "xdg").exists()


# ------------------------------------------------------------------ local copies, the CLI
def _run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "cae.data", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600
    )


def test_fetch_from_a_local_folder_and_check(tmp_path):
    """``--from``: local copies, checked the same way; a corrupt one is refused; ``check`` says what is there."""
    src = tmp_path / "src"
    src.mkdir()
    p, _ = _iris(src)
    F.write_labelled_csv(src / "pima.csv", np.zeros((3, 8)), [0, 1, 0])  # not the paper's Pima
    out = tmp_path / "out"
    r = _run("fetch", "--to", str(out), "--from", str(src), "--names", "iris,pima,yeast")
    assert r.returncode == 1
    assert "✓ Iris" in r.stdout and "FAILED (content)" in r.stdout and "3 rows, the paper has 768" in r.stdout
    assert "FAILED (missing)" in r.stdout and "1 of 3 datasets" in r.stdout
    assert (out / "iris.csv").read_bytes() == p.read_bytes() and not (out / "pima.csv").exists()
    r = _run("check", str(out), "--names", "iris,pima")
    assert r.returncode == 1 and "✓ iris" in r.stdout and "✗ pima" in r.stdout and "1 of 2" in r.stdout
    r = _run("check", str(out), "--names", "iris")
    assert r.returncode == 0
    r = _run("fetch", "--names", "nonsense", "--to", str(out))
    assert r.returncode != 0 and "unknown dataset nonsense" in r.stderr


def test_check_ends_with_what_is_missing_and_how_to_get_it(tmp_path):
    """``check`` on a folder with Iris alone exits 1 and its last line says 1 of 13, names the 12 missing, and
    gives the command that gets them into that folder; a subset checks with --names."""
    _iris(tmp_path)
    r = _run("check", str(tmp_path))
    assert r.returncode == 1
    last = r.stdout.splitlines()[-1]
    assert last.startswith(f"1 of 13 datasets as the paper has them in {tmp_path}; missing: ionosphere, pima,")
    assert last.endswith(
        f"paper2d. Run `python -m cae.data fetch --to {tmp_path}` to get them "
        "(`python -m cae.data check --names iris,…` checks only some)."
    )
    F.write_labelled_csv(tmp_path / "pima.csv", np.zeros((3, 8)), [0, 1, 0])
    r = _run("check", str(tmp_path), "--names", "iris,pima,yeast")
    assert r.returncode == 1 and r.stdout.splitlines()[-1] == (
        f"1 of 3 datasets as the paper has them in {tmp_path}; missing: yeast; not as the paper has them: pima. "
        f"Run `python -m cae.data fetch --names yeast,pima --to {tmp_path}` to get them."
    )
    r = _run("check", str(tmp_path), "--names", "iris")
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("All 1 dataset(s) checked are as the paper")


def test_fetch_everything_from_shared(tmp_path):
    """The whole set from ../shared (what a machine without network but with the files does)."""
    folder, data = paper_datasets_folder()
    r = _run("fetch", "--to", str(tmp_path), "--from", str(folder), "--from", str(data))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "13 of 13 datasets" in r.stdout
    for spec in F.PAPER_DATASETS.values():
        assert (tmp_path / spec.filename).read_bytes() == (folder / spec.filename).read_bytes()
    assert F.authors_2d_path(tmp_path).read_bytes() == (data / F.PAPER2D_FILE).read_bytes()


def test_the_default_folder_is_the_per_user_one(tmp_path, monkeypatch):
    monkeypatch.setenv("CAE_EXPLORER_DATA", str(tmp_path / "mine"))
    assert F.default_folder() == tmp_path / "mine" and not (tmp_path / "mine").exists()
    monkeypatch.delenv("CAE_EXPLORER_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert F.default_folder() == tmp_path / "xdg" / "cae-explorer" / "datasets"
    [o] = F.fetch(["iris"], log=None)
    assert o.path == tmp_path / "xdg" / "cae-explorer" / "datasets" / "iris.csv"


def test_sample_data_command_rewrites_the_files(tmp_path):
    r = _run("sample_data", str(tmp_path))
    assert r.returncode == 0, r.stderr
    for name in ("paper2d_sample.csv", "blobs3d_sample.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / name), pd.read_csv(ROOT / "sample_data" / name))
    assert (tmp_path / "home_model.npz").exists()


# ------------------------------------------------------------------ the real sources (where a network reaches them)
def _reachable(host, port=443, timeout=5):
    try:
        socket.create_connection((host, port), timeout=timeout).close()
        return True
    except OSError:
        return False


@pytest.mark.network
def test_the_real_sources(tmp_path):
    """Ionosphere from OpenML and the authors' 2-D file from GitHub, checked; skipped where they cannot be reached."""
    missing = [h for h in ("www.openml.org", "raw.githubusercontent.com") if not _reachable(h)]
    if missing:
        pytest.skip(f"no network to {', '.join(missing)} here: the real download path cannot run")
    outcomes = F.fetch(["ionosphere", "paper2d"], to=tmp_path, log=None)
    assert all(o.status == "fetched" for o in outcomes), [o.message for o in outcomes]
    assert F.authors_2d_path(tmp_path).read_bytes()[:12] == b"x0,x1,label\n"
