"""The Protocol Buffers messages of an Nsight Compute report, as far as warpscope reads them.

Written from the field names and numbers of the report format (Nsight Compute documents the
format by shipping its message definitions with the tool); warpscope declares only the fields
it reads. Everything else in a message (section layouts, charts, CPU call stacks, NVTX state)
is left undecoded by the protobuf runtime, which skips unknown fields, so a report from a newer
Nsight Compute with fields added still parses.

Every field is declared optional, even those the format marks required: a damaged report
is reported by warpscope with its own message, not by the runtime's "missing required field".
The messages are built at import time from the table below (no generated code, no protoc).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError, Message

#: a parsed message: its classes are built at run time, so its fields are the table's, which
#: a type checker cannot see
Msg = Any

_T = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    # text is read as bytes and decoded by ``text``: proto2 does not promise UTF-8, and the
    # runtime hands back str or bytes depending on whether a damaged string decodes
    "string": _T.TYPE_BYTES,
    "bytes": _T.TYPE_BYTES,
    "bool": _T.TYPE_BOOL,
    "float": _T.TYPE_FLOAT,
    "double": _T.TYPE_DOUBLE,
    "int32": _T.TYPE_INT32,
    "int64": _T.TYPE_INT64,
    "uint32": _T.TYPE_UINT32,
    "uint64": _T.TYPE_UINT64,
}

# message -> [(field, number, type, repeated)]; enums are read as int32 (same wire format)
_SCHEMA: dict[str, list[tuple[str, int, str, bool]]] = {
    "FileHeader": [("Version", 1, "uint32", False)],
    "BlockHeader": [
        ("NumSources", 1, "uint32", False),
        ("NumResults", 2, "uint32", False),
        ("SessionDetails", 3, "ReportSessionDetails", False),
        ("StringTable", 4, "StringTable", False),
        ("PayloadSize", 5, "uint32", False),
        ("Process", 6, "ProcessInfo", False),
        ("NumRangeResults", 7, "uint32", False),
        ("NumCmdlistResults", 8, "uint32", False),
        ("NumGraphResults", 9, "uint32", False),
    ],
    "StringTable": [("Strings", 1, "string", True)],
    "ProcessInfo": [
        ("ProcessID", 1, "uint32", False),
        ("Hostname", 2, "string", False),
        ("ProcessName", 3, "string", False),
    ],
    "ReportSessionDetails": [
        ("ProcessID", 1, "uint32", False),
        ("CreationTime", 2, "uint64", False),
        ("HostSystemInfo", 3, "SystemInfo", False),
        ("TargetSystemInfo", 4, "SystemInfo", False),
        ("DeviceAttributes", 6, "DeviceAttributes", True),
        ("VersionInfo", 8, "VersionInfo", True),
        ("ExecutableSettings", 9, "ExecutableSettings", False),
        ("ProfilerCmdline", 11, "string", False),
    ],
    "SystemInfo": [
        ("OSName", 1, "string", False),
        ("Build", 2, "string", False),
        ("Processor", 3, "string", False),
        ("Architecture", 4, "string", False),
        ("ComputerName", 5, "string", False),
    ],
    "VersionInfo": [("Provider", 1, "string", False), ("Version", 2, "string", False)],
    "ExecutableSettings": [
        ("ExecutablePath", 1, "string", False),
        ("WorkDirectory", 2, "string", False),
        ("CmdlineArguments", 3, "string", False),
    ],
    "DeviceAttributes": [
        ("ID", 1, "uint32", False),
        ("Name", 2, "string", False),
        ("Attributes", 3, "DeviceAttribute", True),
    ],
    "DeviceAttribute": [("Name", 1, "string", False), ("Value", 2, "MetricValue", False)],
    "MetricValue": [
        ("StringValue", 1, "string", False),
        ("FloatValue", 2, "float", False),
        ("DoubleValue", 3, "double", False),
        ("Uint32Value", 4, "uint32", False),
        ("Uint64Value", 5, "uint64", False),
    ],
    "MetricListElement": [
        ("CorrelationId", 1, "MetricValue", False),
        ("ElementValue", 2, "MetricValue", False),
    ],
    "MetricResult": [
        ("NameId", 1, "uint32", False),
        # kept serialized: a MetricValue, read in _launch_row without a message object for the
        # common 9-byte double (a submessage object costs more than the rest of a metric)
        ("Value", 2, "bytes", False),
        # kept serialized: instances.py decodes the long per-instruction lists in bulk
        ("MetricValueList", 3, "bytes", True),
        ("Category", 4, "int32", False),
    ],
    "Uint64x3": [("X", 1, "uint64", False), ("Y", 2, "uint64", False), ("Z", 3, "uint64", False)],
    "ProfileResult": [
        ("ThreadID", 1, "uint32", False),
        ("APICallID", 2, "uint64", False),
        ("KernelID", 4, "uint64", False),
        ("KernelMangledName", 5, "string", False),
        ("KernelFunctionName", 6, "string", False),
        ("KernelDemangledName", 7, "string", False),
        ("GridSize", 10, "Uint64x3", False),
        ("BlockSize", 11, "Uint64x3", False),
        ("MetricResults", 13, "MetricResult", True),
        ("CreationTime", 14, "uint64", False),
        ("Source", 15, "SourceData", False),
        # kept serialized: every launch repeats the same section definitions, which
        # source.py decodes once per distinct definition
        ("Sections", 17, "bytes", True),
        ("RuleResults", 19, "RuleResult", True),
        ("ContextID", 22, "uint32", False),
        ("StreamID", 23, "uint32", False),
        ("RenamedDemangledName", 31, "string", False),
    ],
    "Section": [
        ("Identifier", 1, "string", False),
        ("Metrics", 6, "SectionMetrics", False),
        ("SourceMetrics", 13, "SectionMetrics", False),
    ],
    "SectionMetrics": [("Metrics", 1, "SectionMetric", True)],
    "SectionMetric": [
        ("Name", 1, "string", False),
        ("Label", 2, "string", False),
        ("Groups", 9, "string", True),
    ],
    "SourceData": [
        ("Reference", 1, "uint64", False),
        ("Binary", 4, "bytes", False),
        ("SassLevel", 5, "int32", False),
        ("CudaSmVersion", 6, "uint32", False),
        ("SourceFiles", 8, "SourceFiles", False),
    ],
    "SourceFiles": [("Files", 1, "SourceFile", True)],
    "SourceFile": [("FileName", 1, "string", False), ("Content", 2, "string", False)],
    "RuleResult": [
        ("Identifier", 1, "string", False),
        ("DisplayName", 2, "string", False),
        ("Body", 3, "RuleBody", False),
        ("SectionIdentifier", 4, "string", False),
    ],
    "RuleBody": [("Items", 1, "RuleBodyItem", True)],
    "RuleBodyItem": [
        ("Message", 1, "RuleMessage", False),
        ("Speedup", 10, "RuleSpeedup", False),
    ],
    "RuleMessage": [
        ("Message", 1, "string", False),
        ("Type", 2, "int32", False),
        ("Id", 3, "int32", False),
        ("Name", 4, "string", False),
    ],
    "RuleSpeedup": [("SpeedupType", 1, "int32", False), ("Value", 2, "double", False)],
}

_PACKAGE = "warpscope.ncurep"


class ReportDamage(Exception):
    """The report's structure breaks: what was expected, and where when the byte is known."""

    def __init__(self, what: str, offset: int | None = None) -> None:
        super().__init__(what if offset is None else f"at byte {offset:,}: {what}")
        self.offset = offset


def parse(cls: Any, raw: bytes, what: str, offset: int | None = None) -> Msg:
    """``raw`` as a ``cls`` message; a damaged one is ``ReportDamage``, saying ``what`` it is."""
    try:
        return cls.FromString(raw)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise ReportDamage(f"{what} that does not decode ({e})", offset) from None


def text(raw: bytes) -> str:
    """A string field's text; bytes that are not UTF-8 become U+FFFD."""
    return raw.decode("utf-8", "replace")


def _build() -> dict[str, type[Message]]:
    file = descriptor_pb2.FileDescriptorProto(
        name="warpscope_ncurep.proto", package=_PACKAGE, syntax="proto2"
    )
    for name, fields in _SCHEMA.items():
        message = file.message_type.add(name=name)
        for field, number, kind, repeated in fields:
            f = message.field.add(name=field, number=number)
            f.label = _T.LABEL_REPEATED if repeated else _T.LABEL_OPTIONAL
            if kind in _SCALARS:
                f.type = _SCALARS[kind]
            else:
                f.type = _T.TYPE_MESSAGE
                f.type_name = f".{_PACKAGE}.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
        for name in _SCHEMA
    }


_CLASSES = _build()
FileHeader: Any = _CLASSES["FileHeader"]
BlockHeader: Any = _CLASSES["BlockHeader"]
SourceData: Any = _CLASSES["SourceData"]
ProfileResult: Any = _CLASSES["ProfileResult"]
Section: Any = _CLASSES["Section"]
MetricListElement: Any = _CLASSES["MetricListElement"]
MetricValue: Any = _CLASSES["MetricValue"]
