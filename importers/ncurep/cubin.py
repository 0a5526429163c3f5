"""Source lines of SASS instructions, from the line table of a report's cubin.

A kernel built with ``-lineinfo`` carries a DWARF line program in its cubin's ``.debug_line``
that maps each SASS address to a CUDA file and line (what ncu's CUDA view of the source page
shows). pyelftools reads the ELF (sections, symbols, relocations) and runs the line program;
what it cannot do for a cubin is reach the program through compile units (a ``-lineinfo``
cubin has no ``.debug_info``) or tell functions apart: every kernel's code starts at address
0 of its own section, and the program names the kernel only through a relocation of each
sequence's start address. So the relocations are applied here, writing the symbol's index
into the high bits of each start address, and the line program is parsed directly.
"""

from __future__ import annotations

import io
import posixpath
import struct
from dataclasses import dataclass

import numpy as np

_SYMBOL_SHIFT = 40  # bits of an address left for the offset inside a kernel (1 TB)
_OFFSET = (1 << _SYMBOL_SHIFT) - 1


@dataclass
class Lines:
    """One kernel's line table: from each ``offsets[i]`` on, code is ``files[i]``:``lines[i]``."""

    offsets: np.ndarray
    files: list[str]
    lines: np.ndarray

    def at(self, offsets: np.ndarray) -> tuple[list[str | None], np.ndarray]:
        """(file, line) of each offset; (None, 0) before the table's first entry."""
        where = np.searchsorted(self.offsets, offsets, side="right") - 1
        files = [self.files[i] if i >= 0 else None for i in where.tolist()]
        return files, np.where(where >= 0, self.lines[np.maximum(where, 0)], 0)


_LINE_TABLE = b".rela.debug_line\x00"  # the section name, in the ELF's section-name table


def may_have_lines(data: bytes) -> bool:
    """Whether ``data`` (a cubin, or a message holding one) can have a line table."""
    return _LINE_TABLE in data


def line_tables(cubin: bytes) -> dict[str, Lines]:
    """Each kernel's line table, by its (mangled) symbol name; {} when the cubin has none or
    cannot be read (a line table is an extra, never a reason to refuse a report)."""
    if not may_have_lines(cubin):  # built without -lineinfo
        return {}
    # pyelftools is imported only for a cubin with a line table (0.1 s a report otherwise)
    from elftools.common.exceptions import DWARFError, ELFError, ELFParseError
    from elftools.construct import ConstructError

    try:
        return _line_tables(cubin)
    except (
        ELFError,
        ELFParseError,
        DWARFError,
        ConstructError,
        struct.error,
        ValueError,
        KeyError,
        IndexError,
        AttributeError,
        TypeError,
        EOFError,
    ):
        return {}


def _line_tables(cubin: bytes) -> dict[str, Lines]:
    from elftools.common.utils import struct_parse
    from elftools.dwarf.lineprogram import LineProgram
    from elftools.dwarf.structs import DWARFStructs
    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection
    from elftools.elf.sections import SymbolTableSection

    elf = ELFFile(io.BytesIO(cubin))
    section = elf.get_section_by_name(".debug_line")
    relocations = elf.get_section_by_name(".rela.debug_line")
    if section is None or not isinstance(relocations, RelocationSection):
        return {}
    symbols = elf.get_section(relocations["sh_link"])
    if not isinstance(symbols, SymbolTableSection):
        return {}
    data = bytearray(section.data())
    for r in relocations.iter_relocations():
        struct.pack_into("<Q", data, r["r_offset"], (r["r_info_sym"] << _SYMBOL_SHIFT) + r["r_addend"])
    stream = io.BytesIO(bytes(data))
    structs = DWARFStructs(little_endian=elf.little_endian, dwarf_format=32, address_size=elf.elfclass // 8)
    rows: dict[int, list[tuple[int, str, int]]] = {}
    start = 0
    while start < len(data):
        header = struct_parse(structs.Dwarf_lineprog_header, stream, start)
        end = start + header["unit_length"] + 4
        directories = [d.decode("utf-8", "replace") for d in header["include_directory"]]
        files = [
            posixpath.normpath(
                posixpath.join(directories[f.dir_index - 1], f.name.decode("utf-8", "replace"))
            )
            if 0 < f.dir_index <= len(directories)
            else f.name.decode("utf-8", "replace")
            for f in header["file_entry"]
        ]
        program = LineProgram(header, stream, structs, stream.tell(), end)
        for entry in program.get_entries():
            state = entry.state
            if state is None or state.end_sequence or not 0 < state.file <= len(files):
                continue
            symbol = state.address >> _SYMBOL_SHIFT
            rows.setdefault(symbol, []).append((state.address & _OFFSET, files[state.file - 1], state.line))
        start = end
    tables = {}
    for symbol, entries in rows.items():
        entries.sort(key=lambda e: e[0])
        tables[symbols.get_symbol(symbol).name] = Lines(
            np.array([e[0] for e in entries], dtype=np.int64),
            [e[1] for e in entries],
            np.array([e[2] for e in entries], dtype=np.int64),
        )
    return tables
