"""Collection rules for the whole repository (tests/ and the doctests of cae/)."""

import importlib.util

# cae.integrations.river needs the optional River extra; without it its doctests are not collected
# (tests/unit/test_river.py skips itself, with the reason). The test extra installs River, so CI runs them.
collect_ignore = [] if importlib.util.find_spec("river") else ["cae/integrations/river.py"]
# a throw-away algorithm's modules, copied into cae/algorithms of a copy of the repository by
# tests/unit/test_adding_an_algorithm.py (their relative imports work only there)
collect_ignore.append("tests/fixtures/new_algorithm")
