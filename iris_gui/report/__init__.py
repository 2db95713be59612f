"""The shareable report: chosen runs (and a sweep) as one HTML file or a Markdown file with its
images beside it, readable offline, for a paper, a note or an issue.

``content`` gathers what the report says from stored runs (no Qt); ``figures`` draws its figures
with the figures package's renderers (the same pictures as File -> Export); ``html_page`` and ``markdown_page``
lay it out; ``writer.write_report`` is the one entry point, for the CLI and the window alike.
Nothing below imports this package.
"""
