"""Importers: profiler exports -> Profile. The format is detected from content, not the name."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import polars as pl
from polars.exceptions import PanicException

from warpscope.errors import InputError, python_file_error
from warpscope.importers import _input, ncu
from warpscope.importers.ncu import direct, stream, text_page
from warpscope.importers.pages import attach_source_pages, merge_pages
from warpscope.model import store
from warpscope.model.profile import Profile, is_saved_profile
from warpscope.occupancy.profile_check import check as occupancy_check


def import_file(
    path: str | os.PathLike[str], progress: stream.Progress | None = None, *, via_ncu: bool = False
) -> Profile:
    """Read one export (or a saved warpscope profile) into a Profile.

    Every failure is an InputError (file, line, what was expected): input that trips an
    unforeseen error inside an importer is reported the same way, never as a traceback.
    """
    try:
        return _import(path, progress, via_ncu)
    except InputError:
        raise
    except (Exception, PanicException) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise InputError(
            str(path),
            f"could not be imported ({type(e).__name__}: {first}); "
            "please report this file to the warpscope developers",
        ) from e


def _import(path: str | os.PathLike[str], progress: stream.Progress | None, via_ncu: bool) -> Profile:
    name = str(path)
    if os.path.isdir(path):
        return _import_folder(name)
    if is_saved_profile(path):
        try:
            return Profile.load(path)
        except (Exception, PanicException) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise InputError(name, f"damaged warpscope profile ({first})") from None
    head = _input.read_head(name)
    if direct.eligible(name, head) and (profile := direct.import_direct(name)) is not None:
        return _with_occupancy(profile)
    if stream.should_stream(name, head):  # big details/raw pages: bounded memory
        return _with_occupancy(stream.import_stream(name, ncu.import_csv, progress))
    if head.startswith(_input.NCU_REPORT_MAGIC):
        from warpscope.importers import ncurep  # protobuf is imported only for a report

        if via_ncu:  # NVIDIA's ncu-report where it is installed, else ncu on the PATH
            from warpscope.importers.ncurep import via_ncu_report
            from warpscope.importers.ncurep.via_ncu import import_via_ncu

            if via_ncu_report.available():
                return _with_occupancy(ncurep.import_report_via_ncu_report(name))
            return import_via_ncu(name, import_file)
        return _with_occupancy(ncurep.import_report(name))
    data = _input.read_bytes(name)
    _input.check_text(name, data)
    if ncu.looks_like_csv(data):
        return _with_occupancy(ncu.import_csv(name, data))
    if text_page.looks_like_text(data):
        return _with_occupancy(ncu.import_text(name, _input.decode(name, data)))
    # the rarer formats' modules are imported when a file may be one (each Nsight Compute CSV
    # import starts a process that needs neither)
    from warpscope.importers import nvprof
    from warpscope.importers.ncu import source_page

    if source_page.looks_like_source(data):
        return source_page.import_source(name, _input.decode(name, data))
    if nvprof.looks_like_nvprof(data[: 1 << 16]):
        return _with_occupancy(nvprof.import_nvprof(name, _input.decode(name, data)))
    raise _unknown(name, data)


def _import_folder(path: str) -> Profile:
    """A saved profile folder, or a dataset's newest run."""
    if store.is_profile_folder(path):
        return store.load_folder(path)
    if store.is_dataset(path):
        try:
            return store.load_run(path, store.select_run(path))
        except KeyError as e:
            raise InputError(path, e.args[0]) from None
    raise InputError(path, "a folder that is neither a saved warpscope profile nor a dataset")


def _with_occupancy(profile: Profile) -> Profile:
    """Theoretical occupancy from the calculator where the file lacks it; disagreements noted."""
    derived, notes = occupancy_check(profile.launches, profile.metrics)
    sources = profile.sources.with_columns(
        pl.col("notes")
        .fill_null(pl.lit([], dtype=pl.List(pl.String)))
        .list.concat(pl.lit(notes, dtype=pl.List(pl.String)))
    )
    return replace(profile, metrics=pl.concat([profile.metrics, derived], how="vertical"), sources=sources)


def import_files(
    paths: list[str] | list[Path], progress: stream.Progress | None = None, *, via_ncu: bool = False
) -> Profile:
    """Several files as one Profile (launch ids renumbered; each file keeps its source row).
    Pages of one Nsight Compute report (raw and details, say) become one set of launches.
    A source page's listings go to the launches of the other files they were taken from.
    ``via_ncu``: read .ncu-rep reports through ncu's own export instead."""
    return combine([import_file(p, progress, via_ncu=via_ncu) for p in paths])


def combine(profiles: list[Profile]) -> Profile:
    """Files imported one by one, as one Profile: pages of one report merged, source pages'
    listings moved onto their launches, launch ids renumbered."""
    return Profile.concat(attach_source_pages(merge_pages(profiles)))


def _unknown(path: str, data: bytes) -> InputError:
    head = data[: 1 << 16]
    lines = [l for l in head.split(b"\n") if l.strip()]
    if lines and all(l.startswith((b"==ERROR==", b"==PROF==", b"==WARNING==")) for l in lines[:50]):
        first = next((l for l in lines if l.startswith(b"==ERROR==")), lines[0])
        return InputError(
            path,
            "no profile table found: only Nsight Compute messages, the first "
            f"being: {first.decode('utf-8', 'replace').strip()}",
            line=1,
        )
    if b'"Launch Attribute","Value"' in head:
        return InputError(
            path,
            "an Nsight Compute session page (launch settings and device attributes, no kernel "
            "launch); export the report's raw or details page (--page raw, --page details)",
            line=1,
        )
    _input.decode(path, head)
    if (error := python_file_error(path)) is not None:
        return error
    return InputError(
        path,
        "not a profiler export: expected an Nsight Compute CSV header "
        '("ID","Process ID",... or "Process ID","Process Name",...)',
        line=1,
    )
