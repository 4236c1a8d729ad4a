"""The README's Quickstart is two commands, and CI runs its test command."""

import re

from conftest import ROOT


def _quickstart():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_quickstart_is_two_commands():
    cmds = _quickstart()
    assert len(cmds) == 2
    assert "streamlit run app.py" in cmds[0] and cmds[0].startswith("pip install")
    assert "pytest" in cmds[1] and cmds[1].startswith("pip install")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = _quickstart()[1]
    ci_cmd = [line for line in ci.splitlines() if "pytest" in line and not line.lstrip().startswith("#")]
    assert len(ci_cmd) == 1
    assert ci_cmd[0].replace(" -q", "") == test_cmd


def test_readme_comparison_is_generated_from_results():
    """The README's per-algorithm columns beside the paper's are generated from results/, never typed."""
    import pytest

    from cae.experiments.cli import readme_text

    if not (ROOT / "results" / "paper_comparison.csv").exists():
        pytest.skip("results/paper_comparison.csv is not there")
    text = (ROOT / "README.md").read_text()
    begin = "<!-- generated: python -m cae.experiments readme --results results -->\n"
    end = "<!-- end of generated -->"
    assert begin in text and end in text
    block = text.split(begin, 1)[1].split(end, 1)[0]
    assert block.strip() == readme_text(ROOT / "results").strip()


def test_readme_peer_table_is_generated():
    """The README's table of CAE beside River and scikit-learn is generated from results/peers.csv, never typed."""
    import pytest

    from cae.bench_peers import markdown

    csv = ROOT / "results" / "peers.csv"
    if not csv.exists():
        pytest.skip("results/peers.csv is not there")
    text = (ROOT / "README.md").read_text()
    begin = "<!-- generated: python -m cae.bench --peers --markdown -->\n"
    end = "<!-- end of generated -->"
    assert begin in text
    block = text.split(begin, 1)[1].split(end, 1)[0]
    assert block.strip() == markdown(csv).strip()
