"""The upload, continual-learning and compare pages, and the package code under them."""

import io
import json
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest
from support.csv_corpus import CORPUS, REFUSED

from cae import CAE
from cae.app import your_data as wb
from cae.app.lockstep import Lockstep, display_table
from cae.data import class_incremental_stream, load_builtin, make_paper2d, nonstationary_stream
from cae.data.csvio import escape_markdown, read_csv, scale
from cae.evaluation import CONVENTION_TEXT, ari, average_incremental, backward_transfer, continual_run, nmi
from cae.registry import make_algorithm

APP = str(ROOT / "app.py")


def _page(path):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(path).run()
    assert not at.exception
    return at


# ------------------------------------------------------------------ package
def test_exports_are_safe_and_complete():
    t, rep = read_csv(CORPUS / "23_formula_injection.csv")
    sel = t.select(["value"], label="note")
    m = CAE().fit(sel.X)
    labels = m.predict(sel.X)
    out = wb.labels_csv(t.lines[sel.row_index], labels, t.frame["note"].to_numpy()[sel.row_index]).decode()
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == ["line", "cluster", "label"] and df["line"].tolist() == [2, 3, 4, 5]
    assert all(not str(v).startswith(("=", "+", "-", "@")) for v in df["label"])
    nodes = pd.read_csv(io.BytesIO(wb.nodes_csv(m, ["=SUM(A1)"])))
    assert list(nodes.columns)[:2] == ["node_id", "'=SUM(A1)"] and len(nodes) == len(m.nodes_)
    edges = pd.read_csv(io.BytesIO(wb.edges_csv(m)))
    assert len(edges) == len(m.edges_)
    g = nx.read_graphml(io.BytesIO(wb.graphml_bytes(m)))
    assert g.number_of_nodes() == len(m.nodes_) and g.number_of_edges() == len(m.edges_)
    back = CAE.load(io.BytesIO(wb.model_bytes(m)))
    np.testing.assert_array_equal(back.nodes_, m.nodes_)
    cfg = json.loads(wb.run_config("abc", "f.csv", ["value"], "note", "none", "CAE", {}, None, 4, rep))
    assert cfg["data_sha256"] == "abc" and cfg["features"] == ["value"] and cfg["csv"]["delimiter"] == ","


def test_cluster_and_contingency_tables():
    X = np.vstack([np.random.default_rng(0).normal(c, 0.02, (200, 2)) for c in (0.2, 0.8)])
    y = np.repeat([0, 1], 200)
    order = np.random.default_rng(1).permutation(400)
    m = CAE().fit(X[order])
    lab = m.predict(X)
    tab = wb.cluster_table(m, X, lab, ["a", "b"])
    assert tab["samples"].sum() == 400 and tab["nodes"].sum() == len(m.nodes_)
    ct = wb.contingency_table(y, lab, ["first", "second"])
    assert ct.to_numpy().sum() == 400 and list(ct.index) == ["first", "second"]


def test_continual_run_scores_by_hand():
    s = nonstationary_stream(make_paper2d(250, seed=0), order=[0, 3, 4], seed=0)
    res = continual_run(s)
    assert res.R_nmi.shape == (3, 3) and np.isnan(res.R_nmi[2, 0])
    m = CAE().learn_many(s.X[: s.stage_ends[1]])  # after stage 2, on stage 1 alone and on stages 1..2
    pred = m.predict(s.X[: s.stage_ends[1]])
    clean = s.y[: s.stage_ends[1]] != s.noise_label  # the noise is learned, not scored
    assert res.R_nmi[1, 1] == pytest.approx(nmi(s.y[: s.stage_ends[1]][clean], pred[clean]))
    c0 = clean[: s.stage_ends[0]]
    assert res.R_ari[0, 1] == pytest.approx(ari(s.y[: s.stage_ends[0]][c0], pred[: s.stage_ends[0]][c0]))
    assert res.ai_nmi == pytest.approx(np.mean(np.diag(res.R_nmi)))
    assert res.bwt_nmi == pytest.approx(((res.R_nmi[0, 2] - res.R_nmi[0, 0]) + (res.R_nmi[1, 2] - res.R_nmi[1, 1])) / 2)
    assert res.bwt_ari == backward_transfer(res.R_ari) and res.ai_ari == average_incremental(res.R_ari)
    assert len(res.snapshots) == 3 and res.n_nodes[-1] == len(res.snapshots[-1].nodes_)
    # the paper's convention: stage 1 holds one class and scores 1; BWT = M_C - mean(M_1, M_2)
    assert res.single_class == [True, False, False]
    M = np.diag(res.R_nmi).copy()
    M[0] = 1.0
    paper = res.scores("paper")
    assert paper["ai_nmi"] == pytest.approx(M.mean()) and paper["bwt_nmi"] == pytest.approx(M[2] - M[:2].mean())
    assert res.scores("text")["bwt_nmi"] == res.bwt_nmi
    # the matrices under each convention: the published one scores the single-class row 1, the text's leaves it
    assert res.matrix("nmi", "paper")[0].tolist() == [1.0, 1.0, 1.0]
    np.testing.assert_array_equal(res.matrix("ari", "text"), res.R_ari)
    np.testing.assert_array_equal(res.stage_scores("nmi", "paper"), M)
    assert res.table("paper")["NMI (stages so far)"].tolist() == M.tolist()
    # each stage alone holds one class; its share in its largest cluster, by hand
    assert res.stage_single_class == [True, True, True]
    assert np.all(res.per_stage("nmi", "paper")[np.triu_indices(3)] == 1.0)
    s1 = slice(s.stage_starts[1], s.stage_ends[1])
    p1 = pred[s1][clean[s1]]
    assert res.per_stage_share[1, 1] == pytest.approx(np.bincount(p1).max() / len(p1))
    scored = continual_run(s, score_noise=True)
    m2 = CAE().learn_many(s.X[: s.stage_ends[0]])
    assert scored.R_nmi[0, 0] == pytest.approx(nmi(s.y[: s.stage_ends[0]], m2.predict(s.X[: s.stage_ends[0]])))
    assert scored.single_class == [False, False, False]  # the noise is a class when scored


def test_lockstep_counts_the_nodes_of_every_kind_but_clouds():
    """Fuzzy ART's categories and GNG's units are its nodes (Compare showed "—" for them); AutoCloud's clouds are
    not nodes."""
    s = nonstationary_stream(make_paper2d(200, seed=0), seed=0)
    runs = {a: (a, {}) for a in ("Fuzzy ART", "GNG", "AutoCloud")}
    ls = Lockstep(s, runs)
    ls.step(300)
    shown = display_table(ls.metrics()).set_index("algorithm")["#nodes"]
    assert shown["Fuzzy ART"] == str(len(ls.playgrounds["Fuzzy ART"].model.nodes_))
    assert shown["GNG"] == str(len(ls.playgrounds["GNG"].model.nodes_)) and shown["AutoCloud"] == "—"


def test_lockstep_and_registry():
    s = nonstationary_stream(make_paper2d(200, seed=0), seed=0)
    ls = Lockstep(s, {"CAE": ("CAE", {}), "CAEA": ("CAEA", {"deletion_interval": 30, "max_edge_age": 10})})
    ls.step(300)
    assert ls.t == 300
    tab = ls.metrics()
    assert tab["samples seen"].tolist() == [300, 300] and tab["λ"].tolist()[1] == 30
    # what the page shows: every column of one type (Arrow converts it as it is: no traceback in the server log)
    import pyarrow as pa

    ls2 = Lockstep(s, {"CAE": ("CAE", {}), "AutoCloud": ("AutoCloud", {"m": 2}), "SOINN+": ("SOINN+", {})})
    for n in (0, 300):
        ls2.step(n)
        shown = display_table(ls2.metrics())
        pa.Table.from_pandas(shown)  # raises ArrowInvalid on a column mixing numbers and "—"
        assert shown["#nodes"].tolist()[1] == "—" and shown["algorithm"].tolist() == ["CAE", "AutoCloud", "SOINN+"]
    assert shown["#nodes"].tolist()[0] == str(len(ls2.playgrounds["CAE"].model.nodes_))
    assert shown["λ"].tolist()[0] == str(ls2.playgrounds["CAE"].model.deletion_interval_)
    tr = ls.traces("n_nodes")
    assert set(tr) == {"CAE", "CAEA"} and len(tr["CAE"][0]) == 300
    with pytest.raises(ValueError, match="unknown algorithm"):
        make_algorithm("Neural Gas")  # GNG is registered now; plain NG is not
    with pytest.raises(ValueError, match="no parameter"):
        make_algorithm("CAEA", lam=3)
    with pytest.raises(ValueError, match="must lie in"):
        make_algorithm("CAEA", deletion_interval=2)


# ------------------------------------------------------------------ pages
def test_upload_good_file_learn_and_downloads():
    at = _page("pages/upload.py")
    data = (CORPUS / "22_text_label.csv").read_bytes()
    at.file_uploader(key="w_upload").set_value(("iris-like.csv", data, "text/csv")).run()
    assert not at.exception and not at.error
    assert any("species" == s.value for s in at.selectbox if s.label.startswith("Label"))
    at.button(key="b_learn").click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows learned"] == "15" and "NMI" in metrics
    assert len(at.get("download_button")) == 6
    # changing only the view keeps the results (no relearning)
    model = at.session_state.up_result["model"]
    at.radio(key="w_up_layout").set_value("kamada_kawai").run()
    assert at.session_state.up_result["model"] is model


def _iris_csv_in_file_order():
    """Iris as a CSV with its rows as distributed: 50 setosa, then 50 versicolor, then 50 virginica."""
    from sklearn.datasets import load_iris

    d = load_iris(as_frame=True)
    df = d.data.copy()
    df["species"] = [d.target_names[k] for k in d.target]
    return df.to_csv(index=False).encode()


def test_advice_names_the_cause_and_the_remedy_that_works():
    from sklearn.datasets import load_iris, load_wine

    iris = load_iris()
    sorted_run = CAE().fit(iris.data)
    advice = wb.advise(sorted_run, iris.data, iris.target, list(iris.target_names), label="species", make_model=CAE)
    assert len(sorted_run.nodes_) == 150 and advice.remedies == ["shuffle"]
    assert "rows are sorted by class" in advice.text() and "setosa (rows 1–50)" in advice.text()
    assert "scaling would change little" in advice.text()  # min–max is not what fixes it
    # ... and the remedy works: in random order (seed 0, the page's), far fewer clusters, nothing to advise
    order = np.random.default_rng(0).permutation(150)
    shuffled = CAE().fit(iris.data[order])
    assert advice.tried["shuffle"] == (len(shuffled.nodes_), shuffled.n_clusters_, True)
    assert f"Tried: it gives {len(shuffled.nodes_)} nodes and {shuffled.n_clusters_} clusters" in advice.text()
    assert shuffled.n_clusters_ <= 150 / 4 and wb.advise(shuffled, iris.data[order], iris.target[order]) is None
    # without a way to try it, the remedy is still named, and said untried
    assert "not tried here" in wb.advise(sorted_run, iris.data, iris.target).text()
    # sorted by a feature, no labels
    by_petal = np.argsort(iris.data[:, 2], kind="stable")
    advice = wb.advise(CAE().fit(iris.data[by_petal]), iris.data[by_petal], feature_names=list("abcd"), make_model=CAE)
    assert "sorted by the column c (increasing)" in advice.text()
    # a remedy is offered exactly when trying it fixed the run (this order of Iris is an unlucky one: 95 clusters)
    assert ("shuffle" in advice.remedies) == advice.tried["shuffle"][2]
    # every row right after its twin: V collapses, no node survives; random order fixes it
    twins = np.repeat(iris.data[order], 2, axis=0)
    advice = wb.advise(CAE().fit(twins), twins, make_model=CAE)
    assert "no node at all" in advice.text() and "150 rows repeat the row just before them" in advice.text()
    assert advice.remedies == ["shuffle"] and advice.tried["shuffle"][0] > 0
    # raw Wine: ranges differ, but min–max alone does not fix CAE (13 features, 178 rows: V is never set);
    # the advice says so, and offers what works
    wine = load_wine()
    w_order = np.random.default_rng(0).permutation(len(wine.data))
    Xw, yw = wine.data[w_order], wine.target[w_order]
    advice = wb.advise(CAE().fit(Xw), Xw, yw, make_model=CAE)
    assert "feature ranges differ by" in advice.text() and "so that alone does not fix it" in advice.text()
    assert advice.tried["minmax"][2] is False and advice.remedies == ["caea+minmax"]
    caea = make_algorithm("CAEA", deletion_interval=80, max_edge_age=40).fit(scale(Xw, "minmax"))
    assert advice.tried["caea+minmax"] == (len(caea.nodes_), caea.n_clusters_, True)
    # a sound run: nothing to say
    X2 = np.vstack([np.random.default_rng(0).normal(c, 0.02, (200, 2)) for c in (0.2, 0.8)])
    X2 = X2[np.random.default_rng(1).permutation(400)]
    assert wb.advise(CAE().fit(X2), X2) is None


def test_upload_iris_in_file_order_names_the_cause():
    """The warning after learning names "rows sorted by class", not min–max; its button learns in random order."""
    at = _page("pages/upload.py")
    at.file_uploader(key="w_upload").set_value(("iris.csv", _iris_csv_in_file_order(), "text/csv")).run()
    at.button(key="b_learn").click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["#nodes"] == "150" and metrics["#clusters"] == "150"
    warning = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "The rows are sorted by class: the label column species comes in 3 blocks" in warning
    assert "present the rows in random order" in warning and "min–max scaling." not in warning
    assert [b.key for b in at.button if b.key.startswith("b_remedy")] == ["b_remedy_shuffle"]
    promised = at.session_state.up_result["advice"].tried["shuffle"]
    assert f"Tried: it gives {promised[0]} nodes and {promised[1]} clusters" in warning
    at.button(key="b_remedy_shuffle").click().run()
    assert not at.exception and at.checkbox(key="w_shuffle").value
    metrics = {m.label: m.value for m in at.metric}
    assert (int(metrics["#nodes"]), int(metrics["#clusters"]), True) == promised  # what the warning said
    assert int(metrics["#clusters"]) <= 150 / 4
    assert not any("sorted by class" in w.value for w in at.warning)


def test_upload_the_class_sorted_iris_sample_runs_the_lesson():
    """sample_data/iris_sorted_by_class.csv, chosen on the page: its note says what it is for, the label column
    species is found, and learning it in file order gives the advice about rows sorted by class (150 clusters)."""
    at = _page("pages/upload.py")
    at.selectbox(key="w_sample_name").set_value("iris_sorted_by_class.csv").run()
    assert any(c.value.startswith("Iris as it is distributed: 50 setosa") for c in at.caption)
    at.button(key="b_sample").click().run()
    assert not at.exception
    assert next(s for s in at.selectbox if s.label == "Label column (optional)").value == "species"
    at.button(key="b_learn").click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["#clusters"] == "150"
    warning = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "The rows are sorted by class: the label column species comes in 3 blocks" in warning


def test_upload_a_bad_cell_offers_dropping_its_row():
    """One "abc" in a numeric column: the page says which cell, and offers to read it as missing and drop the row."""
    at = _page("pages/upload.py")
    data = (CORPUS / "33_one_bad_cell.csv").read_bytes()
    at.file_uploader(key="w_upload").set_value(("flowers.csv", data, "text/csv")).run()
    assert not at.exception
    feats = next(m for m in at.multiselect if m.label == "Features")
    assert feats.value == ["sepal"]  # petal is text for now
    box = at.checkbox(key="w_unparsable")
    assert box.label == "Treat the 1 unparsable cell as missing and drop that 1 row"
    assert any("line 8, column petal: 'abc'" in c.value for c in at.caption)
    box.check().run()
    assert not at.exception
    feats = next(m for m in at.multiselect if m.label == "Features")
    assert feats.value == ["sepal", "petal"]
    assert any(t.value == "19 rows × 2 features (1 dropped: 1 with unparsable value)" for t in at.text)
    at.button(key="b_learn").click().run()
    assert not at.exception and {m.label: m.value for m in at.metric}["Rows learned"] == "19"


def test_upload_says_at_once_which_column_is_out_of_the_features_and_why():
    """Before the offer is taken, the page says that petal is out of the features, which cell keeps it out
    (line 8 holds 'abc') and what the box does; the count of rows and features says it too. Once the cells
    are treated as missing, both go."""
    at = _page("pages/upload.py")
    data = (CORPUS / "33_one_bad_cell.csv").read_bytes()
    at.file_uploader(key="w_upload").set_value(("flowers.csv", data, "text/csv")).run()
    assert not at.exception
    warning = next(w.value for w in at.warning if "left out of the features" in w.value)
    assert warning.startswith("Column petal is left out of the features: it is read as text because line 8 holds")
    assert "'abc', not a number" in warning and "Tick the box below" in warning
    assert any(t.value == "20 rows × 1 features; left out, cells not numbers: petal" for t in at.text)
    at.checkbox(key="w_unparsable").check().run()
    assert not any("left out of the features" in w.value for w in at.warning)
    assert not any("left out" in t.value for t in at.text)


def test_upload_bad_cells_are_shown_escaped():
    at = _page("pages/upload.py")
    rows = "".join(f"{i},{i % 3}\n" for i in range(12))
    data = ("a,**b**\n" + rows + "5,<b>x</b>\n").encode()
    at.file_uploader(key="w_upload").set_value(("x.csv", data, "text/csv")).run()
    assert not at.exception
    cap = next(c.value for c in at.caption if "Cells that are not numbers" in c.value)
    assert "<b>" not in cap and "&lt;b&gt;x&lt;/b&gt;" in cap and "\\*\\*b\\*\\*" in cap


def _model_file(model):
    return ("model.npz", wb.model_bytes(model), "application/octet-stream")


def test_upload_a_saved_model_to_label_or_continue():
    """The .npz the page downloads can be uploaded again: to label rows, or to continue learning."""
    at = _page("pages/upload.py")
    at.selectbox(key="w_sample_name").set_value("paper2d_sample.csv").run()
    at.button(key="b_sample").click().run()
    # learn the first model on the whole sample with TCA (any algorithm round-trips)
    at.selectbox(key="w_up_algo").set_value("TCA").run()
    at.button(key="b_learn").click().run()
    trained = at.session_state.up_result["model"]
    X_all = at.session_state.up_result["sel"].X
    assert type(trained).__name__ == "TCA"
    at.radio(key="w_up_source").set_value("saved").run()
    assert any("Choose a model file" in i.value for i in at.info)
    at.file_uploader(key="w_up_model").set_value(_model_file(trained)).run()
    assert not at.exception and not at.error
    assert any(t.value.startswith("A TCA model") for t in at.text)
    at.button(key="b_label").click().run()
    assert not at.exception
    res = at.session_state.up_result
    np.testing.assert_array_equal(res["model"].predict(X_all), trained.predict(X_all))
    assert {m.label: m.value for m in at.metric}["Rows labelled"] == f"{len(X_all):,}"
    # continue learning: the uploaded model learns the rows again, from where it was
    at.radio(key="w_up_model_mode").set_value("learn").run()
    at.button(key="b_learn").click().run()
    cont = at.session_state.up_result["model"]
    expect = trained.snapshot().learn_many(X_all).end_batch()
    assert cont.n_samples_seen_ == 2 * len(X_all)
    np.testing.assert_array_equal(cont.nodes_, expect.nodes_)


def test_upload_refuses_bad_or_mismatched_models(tmp_path):
    at = _page("pages/upload.py")
    at.selectbox(key="w_sample_name").set_value("paper2d_sample.csv").run()
    at.button(key="b_sample").click().run()
    at.radio(key="w_up_source").set_value("saved").run()
    good = wb.model_bytes(CAE().fit(np.random.default_rng(0).random((300, 2))))
    cases = {"garbage": bytes(range(256)) * 4, "truncated": good[: len(good) // 3], "csv": b"a,b\n1,2\n"}
    for name, blob in cases.items():
        at.file_uploader(key="w_up_model").set_value((f"{name}.npz", blob, "application/octet-stream")).run()
        assert not at.exception, name
        assert at.error and at.error[0].value.startswith("This model file cannot be used"), name
    three = wb.model_bytes(CAE().fit(np.random.default_rng(0).random((300, 3))))
    at.file_uploader(key="w_up_model").set_value(("three.npz", three, "application/octet-stream")).run()
    assert not at.exception and "trained on 3 feature(s)" in at.error[0].value
    import pandas as pd_

    named = CAE().fit(pd_.DataFrame(np.random.default_rng(0).random((300, 2)), columns=["u", "v"]))
    at.file_uploader(key="w_up_model").set_value(_model_file(named)).run()
    assert not at.exception and "trained on the columns u, v" in at.error[0].value


def test_upload_sample_file_3d_uses_pca():
    at = _page("pages/upload.py")
    at.selectbox(key="w_sample_name").set_value("blobs3d_sample.csv").run()
    at.button(key="b_sample").click().run()
    at.button(key="b_learn").click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    sel = at.session_state.up_result["sel"]
    assert sel.features == ["x", "y", "z"] and sel.label == "label"  # recognised, and not a feature
    assert 0 <= float(metrics["NMI"]) <= 1 and int(metrics["#clusters"]) >= 2
    assert any(s.label == "Horizontal axis" for s in at.selectbox)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_upload_malformed_files_give_a_clear_message(name):
    at = _page("pages/upload.py")
    # named .csv: the uploader itself refuses other extensions; people rename files
    at.file_uploader(key="w_upload").set_value(
        (Path(name).stem + ".csv", (CORPUS / name).read_bytes(), "text/csv")
    ).run()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith("This file cannot be used: ")
    assert REFUSED[name].split(";")[0] in at.error[0].value


def test_upload_text_from_the_file_is_not_rendered():
    at = _page("pages/upload.py")
    data = (CORPUS / "24_html_in_names.csv").read_bytes()
    at.file_uploader(key="w_upload").set_value(("x.csv", data, "text/csv")).run()
    assert not at.exception
    for el in list(at.markdown) + list(at.warning) + list(at.caption):
        assert "<script>" not in el.value and "<b>" not in el.value


def _chart_cells(at, key):
    """The numbers written in a heatmap's cells (NaN where empty), and which cells carry the '*' mark."""
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("-" + key))
    text = json.loads(chart.proto.spec)["data"][0]["text"]
    vals = np.array([[float(t.rstrip("*")) if t else np.nan for t in row] for row in text])
    return vals, np.array([[t.endswith("*") for t in row] for row in text])


def _check_continual_numbers(at, convention):
    """Every number on the Continual page agrees with the AI/BWT it shows, under the chosen convention."""
    metrics = {m.label: float(m.value) for m in at.metric}
    table = at.dataframe[0].value
    captions = " ".join(c.value for c in at.caption)
    assert CONVENTION_TEXT[convention] in captions  # the page says which convention
    for name in ("NMI", "ARI"):
        at.radio(key="w_cl_metric").set_value(name).run()
        col = table[f"{name} (stages so far)"].to_numpy(float)
        C = len(col)
        ai, bwt = metrics[f"AI ({name})"], metrics[f"BWT ({name})"]
        assert ai == pytest.approx(col.mean(), abs=0.0015)  # the table's column is what AI averages
        R, marked = _chart_cells(at, "cl_R")
        np.testing.assert_allclose(np.diag(R), col, atol=1e-9)  # the heatmap's diagonal is the table's column
        single = (table["classes so far"] == "one").to_numpy()
        assert (marked.any(axis=1) == single).all()  # the '*' rows are the single-class rows
        if convention == "paper":
            assert bwt == pytest.approx(col[-1] - col[:-1].mean(), abs=0.0015)
            assert np.all(R[single][np.isfinite(R[single])] == 1.0)  # a single class scores 1 in every column
        else:
            assert bwt == pytest.approx(np.mean([R[i, C - 1] - R[i, i] for i in range(C - 1)]), abs=0.0015)
        ai_text, bwt_text = next(c.value for c in at.caption if c.value.startswith(f"{name}: AI = ")).split("; ")
        assert ai_text.endswith(f"= {ai:.3f}") and bwt_text.replace("−", "-").endswith(f"= {bwt:+.3f}")
        at.radio(key="w_cl_stage_view").set_value("metric").run()
        P, pmarked = _chart_cells(at, "cl_P")
        if convention == "paper":  # every stage of a class-incremental stream holds one class: all 1
            assert np.all(P[pmarked] == 1.0)
        at.radio(key="w_cl_stage_view").set_value("share").run()
        share, _ = _chart_cells(at, "cl_P")
        fin = share[np.isfinite(share)]
        assert np.all((fin > 0) & (fin <= 1))
    # the networks after each stage say the table's #nodes and #clusters
    for k, row in table.reset_index(drop=True).iterrows():
        stage = escape_markdown(row["after stage"])  # a stage's name may come from a file: shown as typed
        want = f"after stage {k + 1}: {stage} · {row['#nodes']} nodes, {row['#clusters']} clusters"
        assert any(c.value == want for c in at.caption), want
    return table, R


@pytest.mark.parametrize("convention", ["paper", "text"])
def test_continual_page_numbers_agree_with_ai_bwt(convention):
    """Iris with CAE, setosa first: under the published convention the table reads 1 after setosa, as AI counts
    it; under the text's, every cell is scikit-learn's and BWT is computed from the heatmap's last column."""
    at = _page("pages/continual.py")
    at.radio(key="w_cl_src").set_value("builtin").run()
    at.selectbox(key="w_cl_builtin").set_value("iris").run()
    at.button(key="b_cl_run").click().run()
    at.radio(key="w_cl_convention").set_value(convention).run()
    assert not at.exception
    table, _ = _check_continual_numbers(at, convention)
    d = load_builtin("iris")
    d.X = scale(d.X, "minmax")
    res = continual_run(class_incremental_stream(d, order=[0, 1, 2], seed=0))
    want = res.scores(convention)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["AI (NMI)"] == f"{want['ai_nmi']:.3f}" and metrics["BWT (NMI)"] == f"{want['bwt_nmi']:+.3f}"
    setosa = table["NMI (stages so far)"].iloc[0]
    assert setosa == (1.0 if convention == "paper" else round(res.R_nmi[0, 0], 3))
    other = "text" if convention == "paper" else "paper"
    assert any(f"AI (NMI) = {res.scores(other)['ai_nmi']:.3f}" in c.value for c in at.caption)  # the other, beside


@pytest.mark.parametrize("convention", ["paper", "text"])
def test_continual_page_paper_stream_row_one(convention):
    """The paper's stream: stream #1 holds one class. Under the published convention its row reads 1 throughout
    (no false 'forgetting'); under the text's it may drop to 0, and then BWT says so."""
    at = _page("pages/continual.py")
    at.select_slider(key="w_cl_n").set_value(250).run()
    at.multiselect(key="w_cl_order_paper").set_value([0, 3, 4]).run()
    at.button(key="b_cl_run").click().run()
    at.radio(key="w_cl_convention").set_value(convention).run()
    assert not at.exception
    _, R = _check_continual_numbers(at, convention)
    s = nonstationary_stream(make_paper2d(250, noise_fraction=0.1, seed=0), order=[0, 3, 4], seed=0)
    res = continual_run(s)
    if convention == "paper":
        assert R[0].tolist() == [1.0, 1.0, 1.0]
    else:
        np.testing.assert_allclose(R[0], res.R_nmi[0].round(3))
    assert len(at.dataframe[0].value) == 3


def _radio_shown(radio):
    """The option a browser shows for a radio it draws afresh: the value the server sends with it, else the
    first option (a browser forgets a widget that a run did not draw)."""
    return radio.proto.raw_value if radio.proto.set_value else radio.proto.options[radio.proto.default]


def test_continual_convention_radio_shows_what_the_numbers_follow_after_a_stream_change():
    """Iris under the text's convention, then the paper's stream and Run (a run in between stops before the
    radio): the radio shows the text's convention, as every number does; toggling it then changes every number
    (the paper's stream #1 → #6: BWT (NMI) +0.014 published, −0.190 under the text)."""
    at = _page("pages/continual.py")
    at.radio(key="w_cl_src").set_value("builtin").run()
    at.selectbox(key="w_cl_builtin").set_value("iris").run()
    at.button(key="b_cl_run").click().run()
    at.radio(key="w_cl_convention").set_value("text").run()
    at.radio(key="w_cl_src").set_value("paper").run()  # no result for this stream yet: the page stops early
    at.button(key="b_cl_run").click().run()
    assert not at.exception
    radio = at.radio(key="w_cl_convention")
    assert _radio_shown(radio) == "The paper's text (scikit-learn's scores)"
    _check_continual_numbers(at, "text")
    s = nonstationary_stream(make_paper2d(1500, noise_fraction=0.1, seed=0), order=list(range(6)), seed=0)
    res = continual_run(s)
    for convention in ("paper", "text", "paper"):
        at.radio(key="w_cl_convention").set_value(convention).run()
        assert not at.exception
        shown = _radio_shown(at.radio(key="w_cl_convention"))
        assert shown.startswith("The paper's published" if convention == "paper" else "The paper's text")
        _check_continual_numbers(at, convention)
        metrics = {m.label: m.value for m in at.metric}
        want = res.scores(convention)
        assert metrics["BWT (NMI)"] == f"{want['bwt_nmi']:+.3f}" and metrics["AI (ARI)"] == f"{want['ai_ari']:.3f}"
    assert f"{res.scores('paper')['bwt_nmi']:+.3f}" == "+0.014" and f"{res.scores('text')['bwt_nmi']:+.3f}" == "-0.190"


def _chart_spec(at, key):
    return json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith("-" + key)).proto.spec)


def test_compare_names_only_the_chosen_algorithms_and_labels_the_stage_lines():
    """Without AutoCloud, neither the traces chart nor the table's caption mentions it; with it, both do. Each
    dashed stage line is labelled with the stage it starts; while one class is seen, the table's NMI and ARI read
    "n/a — one class so far" (and so does the table's CSV) and the caption says why."""
    at = _page("pages/compare.py")
    at.number_input(key="w_cmp_stepn").set_value(300).run()
    at.button(key="b_cmp_step").click().run()
    assert not at.exception
    spec = _chart_spec(at, "cmp_traces")
    texts = [a["text"] for a in spec["layout"]["annotations"]]
    assert texts[:2] == ["#nodes", "#clusters"]  # the subplot titles
    assert texts[2:] == [f"→ stream #{k}" for k in range(2, 7)]
    caption = next(c.value for c in at.caption if c.value.startswith("NMI/ARI on the samples seen so far"))
    assert "AutoCloud" not in caption and "AutoCloud" not in json.dumps(spec)
    assert "NMI/ARI n/a while the labels seen hold one class" in caption
    table = at.dataframe[0].value
    assert set(table["NMI"]) == set(table["ARI"]) == {"n/a — one class so far"}
    assert table.to_csv(index=False).count("n/a — one class so far") == 2 * len(table)
    assert "λ belongs to CAE and CAEA only (— for SOINN+ and TCA)" in caption
    at.multiselect(key="w_cmp_algos").set_value(["CAE", "AutoCloud"]).run()
    at.number_input(key="w_cmp_stepn").set_value(2000).run()
    at.button(key="b_cmp_step").click().run()
    assert not at.exception
    texts = [a["text"] for a in _chart_spec(at, "cmp_traces")["layout"]["annotations"]]
    assert texts[0] == "#nodes (AutoCloud: #clouds)"
    caption = next(c.value for c in at.caption if c.value.startswith("NMI/ARI on the samples seen so far"))
    assert "AutoCloud has clouds, not nodes" in caption and "V and λ belong to CAE only (— for AutoCloud)" in caption
    assert "one class" not in caption
    assert all(isinstance(v, float) for v in at.dataframe[0].value["NMI"])


def test_compare_page_steps_together():
    at = _page("pages/compare.py")
    assert at.multiselect(key="w_cmp_algos").value == ["CAE", "CAEA", "SOINN+", "TCA"]
    at.number_input(key="w_cmp_stepn").set_value(300).run()
    at.button(key="b_cmp_step").click().run()
    assert not at.exception
    tab = at.dataframe[0].value
    assert tab["samples seen"].tolist() == [300] * 4
    # the paper's setting for its non-stationary 2-D data is filled in by default
    assert tab["algorithm"].tolist() == ["CAE", "CAEA (λ=50, a_max=40)", "SOINN+", "TCA (λ=500, σ_init=0.1)"]
    ls = at.session_state.cmp
    for label, pg in ls.playgrounds.items():  # each is the algorithm learned alone on the same stream
        algo, params = ls.runs[label]
        alone = make_algorithm(algo, **params).learn_many(ls.stream.X[:300])
        np.testing.assert_array_equal(pg.model.nodes_, alone.nodes_)
    # the other two, with their parameters changed by hand and then back to the paper's setting
    at.multiselect(key="w_cmp_algos").set_value(["ASOINN", "AutoCloud", "CAE"]).run()
    at.number_input(key="w_cmp_ASOINN_deletion_interval").set_value(100).run()
    assert at.session_state.cmp.runs["ASOINN (λ=100, a_max=10)"] == (
        "ASOINN",
        {"deletion_interval": 100, "max_edge_age": 10.0},
    )
    at.button(key="b_cmp_paper_ASOINN").click().run()
    assert at.number_input(key="w_cmp_ASOINN_deletion_interval").value == 250  # non-stationary grid value
    at.button(key="b_cmp_step").click().run()
    tab = at.dataframe[0].value
    assert not at.exception and tab["samples seen"].tolist() == [300] * 3
    assert (tab.loc[tab["algorithm"] == "AutoCloud (m=2)", "#nodes"] == "—").all()  # clouds, not nodes
    # counts are integers ("202", never "202.0"), in every column, missing or not
    for col in ("samples seen", "#nodes", "#clusters", "λ"):
        assert all(str(v) == "—" or str(v).isdigit() for v in tab[col]), (col, tab[col].tolist())
    assert str(tab["samples seen"].dtype) == "int64" and str(tab["#clusters"].dtype) == "int64"
    assert any("AutoCloud has no nodes or edges" in c.value for c in at.caption)


def test_fuzzy_art_on_data_outside_the_unit_interval_says_to_min_max_scale():
    """Fuzzy ART takes values in [0, 1] only: on Continual (Iris z-scored) and Your data (Iris unscaled) the page
    says so and how to fix it, instead of a traceback; min-max scaled, both learn."""
    at = _page("pages/continual.py")
    at.radio(key="w_cl_src").set_value("builtin").run()
    at.selectbox(key="w_cl_builtin").set_value("iris").run()
    at.radio(key="w_cl_scaling").set_value("zscore").run()
    at.selectbox(key="w_cl_algo").set_value("Fuzzy ART").run()
    at.button(key="b_cl_run").click().run()
    assert not at.exception
    assert any("Fuzzy ART cannot learn this stream" in e.value and "scale the data first" in e.value for e in at.error)
    at.radio(key="w_cl_scaling").set_value("minmax").run()
    at.button(key="b_cl_run").click().run()
    assert not at.exception and not at.error and len(at.metric) == 4
    up = _page("pages/upload.py")
    up.selectbox(key="w_sample_name").set_value("iris_sorted_by_class.csv").run()
    up.button(key="b_sample").click().run()
    up.radio(key="w_scaling").set_value("none").run()
    up.selectbox(key="w_up_algo").set_value("Fuzzy ART").run()
    assert not up.exception
    assert any("Fuzzy ART takes only values in [0, 1]" in e.value and "minmax" in e.value for e in up.error)
    up.radio(key="w_scaling").set_value("minmax").run()
    up.button(key="b_learn").click().run()
    assert not up.exception and not up.error
    assert type(up.session_state.up_result["model"]).__name__ == "FuzzyART"
