"""The headless core of the terminal UI: the kernel table, its filters, and what each view shows.

Nothing here imports Textual; the TUI (``warpscope.tui``) only renders what these modules
compute, so every view can be tested and benchmarked without a terminal.
"""
