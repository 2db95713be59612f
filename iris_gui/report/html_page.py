"""The report as one self-contained HTML page: inline CSS, images as ``data:`` URIs, no script
and no reference to anything outside the file, so it reads offline in any browser and can be
attached to a mail or an issue as it is."""

from __future__ import annotations

import base64
from html import escape

from iris_gui.engine.records.note_list import PARALLEL_MATHS
from iris_gui.figures.plot_theme import ERROR
from iris_gui.report.content import (
    ESTIMATE_HEADING,
    WINS_HEADING,
    WINS_INTRO,
    Report,
    RunSection,
)
from iris_gui.report.table import LEGEND, NUMERIC

# A run's message (a failure, a stop) in the palette's red, as every view shows it.
STYLE = """
body { font-family: system-ui, sans-serif; color: #202020; background: #ffffff;
       max-width: 1200px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #d0d0d0; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
.meta { color: #606060; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #d0d0d0; padding: 0.25em 0.6em; text-align: left; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e0e0e0; }
figcaption { color: #606060; font-size: 0.92em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.1em 1em; margin: 0.3em 0; }
dt { color: #606060; }
dd { margin: 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
.message { color: ERROR_RED; }
.estimate { border: 1px dashed #909090; padding: 0 0.8em; margin: 0.3em 0; }
""".replace("ERROR_RED", ERROR)


def html_page(report: Report, images: list[tuple[str, bytes]]) -> str:
    """The page; ``images`` are (caption, PNG bytes) in reading order."""
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="meta">Made by iris-gui {escape(report.version)} on {escape(report.generated_at)}.</p>',
    ]
    if report.rows:
        parts += ["<h2>Results</h2>", _table(report),
                  *([f'<p class="verdict"><strong>{escape(report.verdict)}</strong></p>']
                    if report.verdict else []),
                  f"<p>{escape(LEGEND)}</p>"]
    if report.wins:
        parts += [f'<h2 id="wins">{escape(WINS_HEADING)}</h2>', f"<p>{escape(WINS_INTRO)}</p>",
                  "<ul>", *(f"<li><strong>{escape(a.item.claim)}</strong>: {escape(a.text)}</li>"
                            for a in report.wins),
                  "</ul>", f"<p>{escape(PARALLEL_MATHS)}</p>"]
    if images:
        parts.append("<h2>Figures</h2>")
    for caption, data in images:
        encoded = base64.b64encode(data).decode("ascii")
        parts.append(f'<figure><img src="data:image/png;base64,{encoded}" '
                     f'alt="{escape(caption)}"><figcaption>{escape(caption)}</figcaption>'
                     "</figure>")
    if report.sections:
        parts.append("<h2>Runs</h2>")
    parts += [_section(section) for section in report.sections]
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _table(report: Report) -> str:
    head = "".join(f"<th>{escape(name)}</th>" for name in report.headers)
    rows = []
    for row in report.rows:
        cells = "".join(
            f'<td class="num">{escape(value)}</td>' if name in NUMERIC else f"<td>{escape(value)}</td>"
            for name, value in zip(report.headers, row, strict=True))
        rows.append(f"<tr>{cells}</tr>")
    return (f'<table id="results"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _section(section: RunSection) -> str:
    parts = [f'<section id="run-{section.run_id}">', f"<h3>{escape(section.heading)}</h3>"]
    if section.message:
        parts.append(f'<p class="message">{escape(section.message)}</p>')
    if section.sentences:
        parts.append("<p>Where an epoch's time goes (explain):</p><ul>")
        parts += [f"<li>{escape(sentence)}</li>" for sentence in section.sentences]
        parts.append("</ul>")
    if section.estimate:
        parts.append(f'<div class="estimate"><p>{escape(ESTIMATE_HEADING)}</p><ul>')
        parts += [f"<li>{escape(sentence)}</li>" for sentence in section.estimate]
        parts.append("</ul></div>")
    parts.append("<dl>" + "".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>"
                                  for name, value in section.environment) + "</dl>")
    parts.append(f"<p>Repeat it:</p><pre><code>{escape(section.command)}</code></pre>")
    parts.append("</section>")
    return "\n".join(parts)
