"""The warpscope Textual app: a Workspace on screen.

``WarpscopeApp`` holds one ``warpscope.explore.workspace.Workspace`` and pushes screens
over it: the kernel table first, then kernel views, compare, timeline, glossary, help.
Jobs (emulating the demo workloads) run in threads and report progress to the table.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App
from textual.binding import Binding

from warpscope.tui.commands import WarpscopeCommands
from warpscope.tui.screens.loading import LoadingScreen

if TYPE_CHECKING:
    from warpscope.explore.workspace import Workspace
    from warpscope.model.profile import Profile
    from warpscope.tui.screens.kernels import KernelsScreen

#: a job reports (done, total, what) and returns a profile to merge into the workspace
Job = Callable[[Callable[[int, int, str], None]], "Profile"]
#: a loader reports (bytes done, bytes total) and returns what the app opens
Loader = Callable[[Callable[[int, int], None]], "Workspace"]


#: seconds after a key or click during which the analysis thread waits
INPUT_PAUSE = 0.4


class WarpscopeApp(App):
    """GPU kernel profiles, explained in a terminal.

    Given a ``Loader`` (with what it loads, for the screen to say), the app is on screen at
    once and loads in a thread: this module imports only Textual, so Polars, the importers
    and the rules load while the first frame is already shown. A loader's error ends the
    app; ``load_error`` holds it for the caller to report."""

    TITLE = "warpscope"
    CSS_PATH = Path(__file__).parent / "app.tcss"  # absolute: subclasses may live anywhere
    COMMANDS = App.COMMANDS | {WarpscopeCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        # what a terminal user presses to leave a program (Textual's default only says "^q")
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("ctrl+p", "command_palette", "Commands", show=False),
    ]
    NARROW = 100  # below this many columns the layout stacks panes

    def __init__(
        self,
        workspace: Workspace | Loader,
        job: Job | None = None,
        analyse: bool = True,
        loading: str = "the profile",
    ) -> None:
        super().__init__()
        self._loader: Loader | None = None
        if callable(workspace):
            self._loader = workspace
        else:
            self.workspace = workspace
        self._loading = loading
        self._job = job
        self._analyse = analyse
        self.report_path = Path("warpscope-report.md")
        self.analysis: threading.Thread | None = None  # the rules running over the workspace
        self.last_input = 0.0  # time.monotonic() of the last key or click
        self.load_error: Exception | None = None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown | events.MouseScrollDown | events.MouseScrollUp):
            self.last_input = time.monotonic()
        await super().on_event(event)

    def give_way(self) -> None:
        """Called by the analysis thread between launches: while someone types (a key in the last
        ``INPUT_PAUSE`` seconds) the rules wait, so the screen answers at the UI's own pace."""
        while time.monotonic() - self.last_input < INPUT_PAUSE and self.is_running:
            time.sleep(0.02)

    def on_mount(self) -> None:
        if self._loader is None:
            self._show_workspace()
            return
        screen = LoadingScreen(self._loading)
        self.push_screen(screen)
        self.call_after_refresh(
            lambda: self.run_worker(lambda: self._load(screen), thread=True, exclusive=True, group="load")
        )

    def _load(self, screen: LoadingScreen) -> None:
        assert self._loader is not None

        def progress(done: int, total: int) -> None:
            self.call_from_thread(screen.show_progress, done, total)

        try:
            workspace = self._loader(progress)
            import warpscope.tui.screens.kernels  # noqa: F401  (imported here, not on the UI's thread)
        except Exception as e:  # the caller says what went wrong, in one line
            self.load_error = e
            self.call_from_thread(self.exit, None, 2)
            return
        self.call_from_thread(self._loaded, workspace)

    def _loaded(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._show_workspace()

    def _show_workspace(self) -> None:
        from warpscope.tui.screens.kernels import KernelsScreen

        screen = KernelsScreen()
        if self._loader is None:
            self.push_screen(screen)
        else:
            self.switch_screen(screen)
        # Everything loaded so far lives as long as the app: moving it out of the collector's
        # sight keeps full collections (which otherwise land on a keystroke now and then,
        # 50-150 ms with a 100k-launch profile) down to the objects made since.
        self.call_after_refresh(gc.freeze)
        # the rules and the job run in threads that compete for the GIL: after the first frame
        self.call_after_refresh(self._start_background, screen)

    def _start_background(self, screen: KernelsScreen) -> None:
        if self._analyse:
            screen.analyse()
        if self._job is not None:
            self.run_worker(lambda: self._run_job(screen), thread=True, exclusive=True, group="job")

    def on_resize(self, event: events.Resize) -> None:
        # the event's size: the app's own is still the old one while the event is handled
        self.set_class(event.size.width < self.NARROW, "narrow")

    def _run_job(self, screen: KernelsScreen) -> None:
        assert self._job is not None

        def progress(done: int, total: int, what: str) -> None:
            self.call_from_thread(screen.show_progress, done, total, what)

        try:
            profile = self._job(progress)
        except Exception as e:
            from warpscope.tui.text import one_line

            self.call_from_thread(screen.show_progress, 1, 1, "")
            self.call_from_thread(
                self.notify,
                one_line(f"{type(e).__name__}: {e}", 300),
                title="Emulator",
                severity="error",
                timeout=30,
            )
            return
        self.call_from_thread(self._job_done, screen, profile)

    def _job_done(self, screen: KernelsScreen, profile: Profile) -> None:
        self.workspace.add(profile)
        screen.show_progress(1, 1, "")
        screen.refresh_rows()
        if self._analyse:
            screen.analyse()
        self.notify(f"{profile.launches.height} emulated launches added.", title="Emulator")

    # -- app-wide actions ------------------------------------------------------------
    def action_help(self) -> None:
        from warpscope.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_glossary(self, entry: str | None = None) -> None:
        from warpscope.tui.screens.glossary import GlossaryScreen

        self.push_screen(GlossaryScreen(entry))

    def action_export(self) -> None:
        """Say where the markdown report of everything open will go, then write it (atomically,
        in a thread: a big profile's report takes a while) and say it is there."""
        path = os.path.abspath(_unused(self.report_path))  # never over an earlier export or a user's file
        view = self.workspace.view
        shown = " (the launches the filter shows)" if view.name_filter or view.expression else ""
        self.notify(f"Writing the report{shown} to {path} …", title="Export")
        self.run_worker(lambda: self._export(path, shown), thread=True, group="export")

    def _export(self, path: str, shown: str) -> None:
        from warpscope.files import write_text_atomic

        write_text_atomic(path, self.workspace.markdown_report())
        self.call_from_thread(self.notify, f"Report{shown} written to {path}", title="Export")


def _unused(path: Path) -> Path:
    """``path``, or the first of ``stem-2.suffix``, ``stem-3.suffix``, ... that does not exist."""
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate
