"""Compute capability from a GPU's marketing name, for exports that name the device only.

nvprof writes ``"GeForce GTX 1080 Ti (0)"`` but never the compute capability, which the
occupancy calculator needs. Patterns are tried in order; the first match wins.
"""

from __future__ import annotations

import re
from functools import lru_cache

_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"\bK80\b", "3.7"),
    (r"\bK(20|20c|20m|20X|40|40c|40m|6000)\b|GTX TITAN( Black| Z)?$|GTX 780", "3.5"),
    (r"\bGTX (750|745)\b|Quadro K(620|1200|2200)\b|\bM(10|2000|60)\b", "5.0"),
    (r"GTX TITAN X$|GTX (950|960|970|980)\b|\bM(4|40|6000)\b|\bM60\b", "5.2"),
    (r"Jetson (Nano|TX1)|Tegra X1", "5.3"),
    (r"\bP100\b|Quadro GP100", "6.0"),
    (r"TITAN Xp|TITAN X \(Pascal\)|GTX 10[5-8]0|\bP(4|40|6|2000|4000|5000|6000)\b|MX[12]50", "6.1"),
    (r"Jetson TX2|Tegra X2", "6.2"),
    (r"\bV100\b|TITAN V\b|Quadro GV100", "7.0"),
    (r"Xavier|Tegra Xavier", "7.2"),
    (r"\bT4\b|RTX 20[6-8]0|TITAN RTX|GTX 16[5-6]0|Quadro RTX|\bT(400|600|1000|1200|2000)\b", "7.5"),
    (r"\bA100\b|\bA30\b", "8.0"),
    (r"RTX 30[5-9]0|\bA(2|10|16|40|4000|5000|6000)\b|RTX A\d{4}\b", "8.6"),
    (r"Orin", "8.7"),
    (r"RTX 40[5-9]0|\bL4\b|\bL40S?\b|RTX \d{4} Ada", "8.9"),
    (r"\bH100\b|\bH200\b|\bH800\b|GH200", "9.0"),
    (r"\bB200\b|\bB100\b|GB200", "10.0"),
    (r"\bB300\b|GB300", "10.3"),
    (r"RTX 50[6-9]0|RTX PRO \d{4} Blackwell", "12.0"),
    (r"\bGB10\b|DGX Spark", "12.1"),
)
_LONGEST_NAME = 200  # no GPU is called anything longer: a longer "name" is damage, not a device
_COMPILED = tuple((re.compile(p), cc) for p, cc in _PATTERNS)


@lru_cache(maxsize=256)
def compute_capability(device_name: str | None) -> str | None:
    """``"9.0"`` for ``"NVIDIA H100 80GB HBM3"``; None when the name is unknown."""
    if not device_name or len(device_name) > _LONGEST_NAME:
        return None
    name = re.sub(r"\s*\(\d+\)\s*$", "", device_name).strip()
    for pattern, cc in _COMPILED:
        if pattern.search(name):
            return cc
    return None
