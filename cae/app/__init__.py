"""What the Streamlit app computes and draws — pure Python, no Streamlit import.

The pages (``pages/*.py``) read widgets, call these modules and draw what they return:

- :mod:`.streams` — the streams the pages offer, by key, and the parameters an algorithm starts with on them;
- :mod:`.stepper` — a run you can step, play, rewind, fork, place samples into and feed from drawn regions
  (the Playground);
- :mod:`.regions` — regions drawn on the plot (boxes, lassos) and samples drawn uniformly from them;
- :mod:`.panel` — the numbers beside the main view (the still view and Play's frames show the same);
- :mod:`.player` — Play's frames computed on the server for the browser to animate (with
  ``player_frontend/``, its plain-JavaScript half);
- :mod:`.explanations` — every step in words and formulas with its numbers (Explain, the quiz);
- :mod:`.figures` — Plotly figures (one module per view) and the static SVG picture;
- :mod:`.view_options` — how the main view is drawn (:class:`~.view_options.ViewOptions`, one value from page to figure);
- :mod:`.slides` — a range of steps as a self-contained animated HTML file, traces as CSV;
- :mod:`.toolbar` — the charts' toolbar where plotly.js draws outside Streamlit (the player, the slides): no button
  that does nothing;
- :mod:`.lesson_links` — the Playground's and Continual page's state as a URL query and back;
- :mod:`.lockstep` — several algorithms stepped together (Compare algorithms);
- :mod:`.your_data` — chunked learning, tables and downloads (Your data).
"""
