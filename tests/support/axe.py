"""axe-core in a real browser (bundled by axe-playwright-python): the violations on a page or in one of its frames,
and a readable report of them."""

#: the impacts an audit of a whole page fails on
SERIOUS = ("serious", "critical")


def violations(target, impacts=None, always=(), excluded=None):
    """axe-core's violations on ``target`` (a playwright page or frame): those of ``impacts`` (every impact when
    None) and every rule of ``always``, minus the ``{rule: [element target, ...]}`` of ``excluded``."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(target, options={"resultTypes": ["violations"]})
    found = []
    for v in results.response["violations"]:
        if impacts is not None and v["impact"] not in impacts and v["id"] not in always:
            continue
        nodes = [n for n in v["nodes"] if ", ".join(n["target"]) not in (excluded or {}).get(v["id"], [])]
        if nodes:
            found.append({"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": nodes})
    return found


def report(found):
    """The violations as lines: rule, impact, why; then each element (up to 8 per rule) and its HTML."""
    lines = []
    for v in found:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        for n in v["nodes"][:8]:
            lines.append(f"    {', '.join(n['target'])}: {n.get('failureSummary', '').splitlines()[-1:]}")
            lines.append(f"        {n['html'][:160]}")
    return "\n".join(lines)
