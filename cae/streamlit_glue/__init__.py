"""The Streamlit glue the pages share — the only place in cae/ where Streamlit is imported; cae/app/ holds the pure
builders and stays free of it. (The classroom's load benchmark, ``cae/bench/classroom.py``, speaks Streamlit's wire
protocol to a server, its protobuf messages, and imports nothing else of it.)

The pages (``pages/*.py``, ``app.py``) read widgets, call these modules and the package, and draw. What is where:

- :mod:`~cae.streamlit_glue.common` — every page's glue: the entry point, the kernel notice, the escaping rule for
  messages; :mod:`~cae.streamlit_glue.fragment` — every page's fragments, each in a container of its own;
  :mod:`~cae.streamlit_glue.a11y` — the keyboard on every page: the skip link, the focus after an action.
- :mod:`~cae.streamlit_glue.session` — the Playground's session keys (``PlaygroundSession``);
  :mod:`~cae.streamlit_glue.lesson_links` — a page's lesson link in and out of the address bar;
  :mod:`~cae.streamlit_glue.playground_session` — the Playground's sidebar and main view.
- The Playground's parts: :mod:`~cae.streamlit_glue.stage` (the network a square as large as the screen),
  :mod:`~cae.streamlit_glue.player` (Play, animated in the browser), :mod:`~cae.streamlit_glue.place_and_draw` and
  :mod:`~cae.streamlit_glue.plot_input` (samples placed and drawn on the chart), :mod:`~cae.streamlit_glue.how_often`
  (*How often?*).
- The live classroom: :mod:`~cae.streamlit_glue.classroom_session` (a session's role in a class, the hook the
  Playground calls), :mod:`~cae.streamlit_glue.classroom_common` (what both views draw),
  :mod:`~cae.streamlit_glue.classroom_teacher` and :mod:`~cae.streamlit_glue.classroom_student` (the two views of
  ``pages/classroom.py``), :mod:`~cae.streamlit_glue.classroom_push` (the server pushes a class's steps),
  :mod:`~cae.streamlit_glue.rerun_limit` (a person asking too fast is slowed down, server-side).

Imports go one way, from the pages down: the classroom's views over ``classroom_session``, the Playground's session
over both ``lesson_links`` and ``classroom_session`` (``tests/unit/test_architecture.py`` checks there is no circle).
"""
