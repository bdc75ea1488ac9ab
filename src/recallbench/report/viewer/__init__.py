"""The case viewer: a static site written beside a run or a comparison (``recallbench view``).

``site.build_viewer`` writes it; ``serve`` serves and refreshes it while a run is in progress.
The page itself (``static/``) is plain HTML, CSS and JavaScript shipped as package data.
"""
