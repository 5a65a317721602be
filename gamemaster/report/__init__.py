"""``gamemaster report``: a static site of the studio that opens from ``file://`` with no network.

Overview, one page per day, per character and per artifact; CSS, JavaScript and charts
inline or beside the pages. Imported only by the ``report`` command (and the MCP tool).
"""

from .build import DEFAULT_FOLDER, BuildResult, build_report

__all__ = ["DEFAULT_FOLDER", "BuildResult", "build_report"]
