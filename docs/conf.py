"""Sphinx configuration of the documentation site (Markdown sources through MyST).

Build: ``pip install -e ".[docs]"`` then ``sphinx-build -W docs site`` (every warning an error, as
the test suite builds it).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "gamemaster"
author = "gamemaster contributors"
copyright = "the gamemaster contributors, MIT licence"

extensions = ["myst_parser", "generated"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_ext", "_build"]
# Links to a heading (`page.md#section`) are checked, and resolve as on GitHub.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
html_theme = "furo"
html_title = "gamemaster"
html_static_path: list[str] = []
# German content, English prose: the search index is English.
language = "en"
